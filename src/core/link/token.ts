import type { ConnectionOptions } from './connection';

/** Where the token comes from: SecretStorage in VS Code, a flag or the environment in the headless host. */
export type TokenSource = () => Promise<string | undefined>;

/**
 * Token auth (docs/protocol.md §2.2): when a token is set, the handshake carries `Authorization: Bearer`
 * and the first message is `CONNECT {data:{token}}`. Read on every (re)connect, so a new token
 * applies on the next attempt. No token: neither is sent.
 */
export function tokenAuth(source: TokenSource): Required<Pick<ConnectionOptions, 'headers' | 'greeting'>> {
  const current = async (): Promise<string | undefined> => {
    const token = (await source())?.trim();
    return token ? token : undefined;
  };
  return {
    headers: async (): Promise<Record<string, string>> => {
      const token = await current();
      return token ? { Authorization: `Bearer ${token}` } : {};
    },
    greeting: async () => {
      const token = await current();
      return token ? [{ type: 'CONNECT', data: { token } }] : [];
    },
  };
}
