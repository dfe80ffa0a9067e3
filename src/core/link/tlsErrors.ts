/** What a failed TLS handshake means for the developer, in words (the link's error text). */

/** TLS verification failures, by Node's error code: the certificate's issuer is not trusted. */
const UNTRUSTED_CERT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * What to tell the developer about a failed TLS handshake, or undefined when `err` is not one:
 * which check failed, what was trusted, and what to do.
 */
export function explainTlsError(err: Error & { code?: string }, trusted: string | undefined): string | undefined {
  const code = err.code ?? '';
  const checked = trusted ? ` Trusted: ${trusted}.` : " Trusted: Node's built-in roots only.";
  if (UNTRUSTED_CERT.has(code)) {
    return `The backend's TLS certificate is not trusted (${code}: ${err.message}): no trusted certificate authority signed it.${checked} Add the authority that signed it to the system's certificate store (or to a bundle named by SSL_CERT_FILE), then connect again.`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return `The backend's TLS certificate is not valid now (${code}: ${err.message}). Check the server's certificate and this machine's clock.`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `The backend's TLS certificate is for another host name (${err.message}). Use the host name the certificate names in agentBridge.serverUrl.`;
  }
  return undefined;
}
