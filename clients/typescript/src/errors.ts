// The client's failure types: HostdError, a request the daemon answered
// with a JSON-RPC error (wire-contract §2); HostdConnectionError, a request
// that got no answer because the connection is gone; HostdTimeoutError, a
// request the client gave up on; HostdProtocolError, a daemon of another
// protocol version than the client's.

import { wireErrors, type WireErrorName } from './generated';

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
   * The code's name from error.data.code, such as "SESSION_NOT_FOUND".
   * "UNKNOWN" when the answer carried no name (hostd always sends one) or a
   * name this client does not know (a newer daemon's, which `data` still
   * holds): the wire contract says to treat that as a request not served,
   * show the message and not retry it automatically (§6).
   */
  readonly codeName: WireErrorName | 'UNKNOWN';
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
    const name = d['code'];
    this.codeName = typeof name === 'string' && Object.hasOwn(wireErrors, name) ? (name as WireErrorName) : 'UNKNOWN';
    this.field = typeof d['field'] === 'string' ? d['field'] : undefined;
  }

  /** True when the same request may succeed sent again as it is (OVERLOADED: nothing was run). */
  get retriable(): boolean {
    return this.codeName !== 'UNKNOWN' && wireErrors[this.codeName].retriable;
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

/**
 * HostdTimeoutError is a request the client gave up on after its timeout
 * (ClientOptions.requestTimeoutMs, CallOptions.timeoutMs). The client sent
 * $/cancelRequest for it first; `cancelled` says whether the daemon then
 * answered REQUEST_CANCELLED (the call was stopped) or did not answer at
 * all (whether it ran is unknown: review.list says for a tool call).
 */
export class HostdTimeoutError extends Error {
  override readonly name = 'HostdTimeoutError';
  /** The method of the request. */
  readonly method: string;
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;
  /** The daemon answered the cancel with REQUEST_CANCELLED. */
  readonly cancelled: boolean;

  constructor(method: string, timeoutMs: number, cancelled: boolean) {
    super(
      cancelled
        ? `${method} took longer than ${timeoutMs} ms and was cancelled; raise the timeout (requestTimeoutMs, or timeoutMs of the call) if it needs longer`
        : `${method} got no answer within ${timeoutMs} ms, nor to its $/cancelRequest; whether it ran is unknown (review.list says for a tool call): check that hostd is responsive (hostctl stats)`,
    );
    this.method = method;
    this.timeoutMs = timeoutMs;
    this.cancelled = cancelled;
  }
}

/**
 * HostdProtocolError is a daemon that speaks another protocol version than
 * this client (host.info's protocolVersion, wire-contract §6): nothing was
 * sent to it but host.info, and the connection is closed.
 */
export class HostdProtocolError extends Error {
  override readonly name = 'HostdProtocolError';
  /** The daemon's protocolVersion. */
  readonly daemonProtocol: number;
  /** This client's protocol version (the exported protocolVersion). */
  readonly clientProtocol: number;

  constructor(where: string, daemonProtocol: number, daemonVersion: string, clientProtocol: number) {
    super(
      `${where} speaks hostd protocol ${daemonProtocol} (hostd ${daemonVersion}) and this client protocol ${clientProtocol}: ` +
        (daemonProtocol > clientProtocol
          ? 'update @hostd/client to a release for that protocol'
          : 'update hostd, or stop the old daemon (hostctl shutdown) once its clients are closed so that a new one starts') +
        ' (wire-contract §6)',
    );
    this.daemonProtocol = daemonProtocol;
    this.clientProtocol = clientProtocol;
  }
}
