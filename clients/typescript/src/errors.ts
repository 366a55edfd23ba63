// The client's two failure types: HostdError, a request the daemon answered
// with a JSON-RPC error (wire-contract §2), and HostdConnectionError, a
// request that got no answer because the connection is gone.

/**
 * HostdError is a JSON-RPC error answer from hostd: the request was not
 * served (bad params, unknown session, unknown method, cancelled, ...).
 * Match on `codeName`, the name the daemon puts in error.data.code, not on
 * the message; the message names the next step.
 *
 * A tool that runs and fails is not a HostdError: tools.execute answers it
 * as a result with ok: false (wire-contract §4).
 */
export class HostdError extends Error {
  override readonly name = 'HostdError';
  /** The JSON-RPC error code, such as -32001. */
  readonly code: number;
  /**
   * The code's name from error.data.code, such as "SESSION_NOT_FOUND";
   * "UNKNOWN" when the answer did not carry one (hostd always does).
   */
  readonly codeName: string;
  /** error.data as the daemon sent it. */
  readonly data: unknown;
  /** For INVALID_PARAMS, the field at fault (error.data.field), such as "params.workspace". */
  readonly field: string | undefined;
  /** The method of the request the error answers. */
  readonly method: string;

  constructor(method: string, code: number, message: string, data: unknown) {
    super(message);
    this.method = method;
    this.code = code;
    this.data = data;
    const d = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    this.codeName = typeof d['code'] === 'string' ? d['code'] : 'UNKNOWN';
    this.field = typeof d['field'] === 'string' ? d['field'] : undefined;
  }
}

/**
 * HostdConnectionError is a request that got no answer: the connection
 * closed before it (the daemon exited or was stopped, the socket was
 * closed) or the client was closed. The message says what ended it and,
 * for a spawned hostd, the end of its stderr. Whether a tool call that was
 * in flight ran is unknown: review.list on a new connection says.
 */
export class HostdConnectionError extends Error {
  override readonly name = 'HostdConnectionError';
  /** The method of the request that got no answer. */
  readonly method: string;

  constructor(method: string, message: string) {
    super(message);
    this.method = method;
  }
}
