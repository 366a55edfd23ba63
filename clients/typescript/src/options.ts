// The options of HostdClient and of its calls, and the events it reports:
// the public types that are not generated, with no Node.js type in them, so
// that a program compiles against the package without @types/node.

/** The least of an AbortSignal the client uses; Node's and the DOM's AbortSignal fit it. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One JSON-RPC message as it crossed the wire (a request, an answer or a notification). */
export interface JsonRpcMessage {
  jsonrpc: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** What the trace hook gets: each message, sent or received, in the order it crossed. */
export interface TraceEvent {
  direction: 'send' | 'receive';
  message: JsonRpcMessage;
}

/** How a spawned hostd's stderr is handled: see SpawnOptions.stderr. */
export type StderrMode = 'pipe' | 'inherit';

/** Options of every call. */
export interface CallOptions {
  /**
   * Aborting sends $/cancelRequest for the call. The call then settles with
   * the daemon's answer: a HostdError REQUEST_CANCELLED, or the result when
   * the call finished first (so a write that completed is never reported as
   * not done). A signal already aborted rejects with its reason, and nothing
   * is sent. Node's AbortController gives one.
   */
  signal?: AbortSignalLike;
  /** This call's timeout in milliseconds, instead of the client's requestTimeoutMs; 0 for none. */
  timeoutMs?: number;
}

/** Restarting a connection that ended without close(): see ClientOptions.restart. */
export interface RestartOptions {
  /** At most this many restarts within windowMs; the connection ending once more ends the client. Default 5. */
  maxRestarts?: number;
  /** The window maxRestarts counts in, in milliseconds. Default 180000 (3 minutes). */
  windowMs?: number;
}

/** Options of HostdClient.spawn and HostdClient.connect. */
export interface ClientOptions {
  /**
   * How long a call may wait for its answer, in milliseconds, before the
   * client sends $/cancelRequest for it and rejects it with
   * HostdTimeoutError (after up to 2 s more for the daemon's answer to the
   * cancel; a result that comes first is kept). Default 60000; 0 for none.
   * CallOptions.timeoutMs overrides it per call.
   */
  requestTimeoutMs?: number;
  /**
   * Compare host.info's protocolVersion with this client's on connect, and
   * reject with HostdProtocolError when they differ (wire-contract §6).
   * Default true. Only a tool that replays recorded exchanges, and needs
   * the daemon to see nothing else, turns it off.
   */
  checkProtocol?: boolean;
  /** Called with every JSON-RPC message sent and received, in order, from the first host.info on. */
  trace?: (event: TraceEvent) => void;
  /**
   * Start a new connection when this one ends without close(): a spawned
   * hostd that exits is spawned again, a socket that closes is dialed
   * again (6 tries over about 6 s). The new connection is checked like the
   * first, and the sessions this client created and did not delete are
   * created again with the same sessionId and params (wire-contract §1:
   * their review records are durable; the tags the model holds are not, so
   * an edit with one is EDIT_TAG_UNKNOWN and the model reads again). Calls
   * made meanwhile wait for the new connection. A call that was in flight
   * when the connection ended rejects with HostdConnectionError: whether it
   * ran is unknown (review.list says). Off by default; true uses the
   * default RestartOptions.
   */
  restart?: boolean | RestartOptions;
}

export interface SpawnOptions extends ClientOptions {
  /**
   * The hostd binary: a path, or a name looked up on PATH. Default: the
   * environment variable HOSTD_BIN when set, else the binary of the
   * installed @hostd/hostd-<platform>-<arch> package (hostdBinary).
   */
  bin?: string;
  /**
   * Arguments after `--stdio` (added unless present). Without `--standalone`
   * or `--state-dir DIR` the process forwards to the user's shared daemon,
   * starting it when none runs (wire-contract §1); tests should pass one of
   * them so that they get a daemon of their own.
   */
  args?: string[];
  /** The process's environment; default this process's. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * What becomes of hostd's stderr (its log lines, and why it exits):
   * "pipe" (the default) reads it, hands each piece to onStderr handlers
   * and quotes its end in the message of a call the process leaves
   * unanswered; "inherit" writes it to this process's stderr as it comes.
   */
  stderr?: StderrMode;
}

/** What onRestart handlers get once a new connection is up. */
export interface RestartEvent {
  /** Why the previous connection ended. */
  reason: string;
  /** The sessions created again on the new connection. */
  sessions: string[];
  /** The sessions that could not be created again, with the error (the session's workspace may be gone). */
  failed: Array<{ sessionId: string; error: unknown }>;
}

/** Something to undo: a handler registration. */
export interface Disposable {
  dispose(): void;
}
