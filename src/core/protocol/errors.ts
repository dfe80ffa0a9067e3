/** Error codes a TOOL_RESULT may carry (docs/protocol.md §4.5: the sources' list plus three of our own). */
export const TOOL_ERROR_CODES = [
  'BAD_REQUEST',
  'VALIDATION_FAILED',
  'TOOL_NOT_FOUND',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'CONFLICT',
  'TIMEOUT',
  'USER_REJECTED',
  'CANCELLED',
  'INTERNAL_ERROR',
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** A failure a tool reports on purpose: its message is shown to the agent as is. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/**
 * A refusal for a passing reason (busy, too much held), raised before the call changed anything:
 * its answer is not remembered, so the same call sent again with the same id runs then.
 */
export class RetryLaterError extends ToolError {
  constructor(code: ToolErrorCode, message: string) {
    super(code, message);
    this.name = 'RetryLaterError';
  }
}

/** Chat-level error codes the backend may send in an ERROR message (docs/protocol.md §8.4). */
export type BackendErrorCode =
  | 'PROJECT_NOT_FOUND'
  | 'INVALID_REQUEST'
  | 'ANALYSIS_FAILED'
  | 'TOOL_EXECUTION_FAILED'
  | 'MESSAGE_TOO_LARGE'
  | 'REQUEST_OVERRIDDEN'
  | 'ANALYSIS_TIMEOUT';
