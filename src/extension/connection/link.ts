// The live link's machinery: the connection, the dispatcher, and the tools with their zod schemas
// and code intelligence. The controller loads this module on the first connect, not at
// activation: building the schemas and evaluating these modules is most of the bundle's start-up
// cost, and activation blocks the extension host (see the activation row of `npm run bench`).
export { Outbox } from '../../core/link/bridge';
export { resolveProtocol } from '../../core/link/connection';
export { startLink } from '../../core/link/startLink';
export { systemTrust } from '../../core/link/systemCa';
export { tokenAuth } from '../../core/link/token';
export { ALL_TOOLS } from '../../core/tools/registry';
export { journalDirFor, WriteJournal } from '../../core/link/writeJournal';
export { probeBackend } from '../../core/link/probe';
