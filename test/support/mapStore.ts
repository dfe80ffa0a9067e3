import type { StateStore } from '../../src/extension/chat/transcript';

/** workspaceState as a Map, storing JSON copies as VS Code's Memento does. */
export class MapStore implements StateStore {
  readonly map = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.map.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.map.delete(key);
    else this.map.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}
