/**
 * The chat contract's zod schemas, loaded the first time a message is checked or a stored
 * conversation is read, not at activation (building schemas is a large part of start-up).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const contract = (): typeof import('./contract') => require('./contract') as typeof import('./contract');
