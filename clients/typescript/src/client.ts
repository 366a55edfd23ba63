// HostdClient: one JSON-RPC connection to hostd over vscode-jsonrpc, either
// to a spawned `hostd --stdio` or to a daemon's Unix socket, with typed
// calls (the types are generated from docs/openrpc.json), the
// review.recorded notification as a typed event, cancellation through
// AbortSignal ($/cancelRequest) and the tool-call glue of tools.ts.

import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import * as rpc from 'vscode-jsonrpc/node';

import { HostdConnectionError, HostdError } from './errors';
import type {
  MethodName,
  Methods,
  ReviewRecordedParams,
  SessionCreateParams,
  ToolArgs,
  ToolName,
  ToolResult,
  ToolResults,
} from './generated';
import { runTool, type ToolCall, type ToolRun } from './tools';

/** Options of every call. */
export interface CallOptions {
  /**
   * Aborting sends $/cancelRequest for the call. The call then settles with
   * the daemon's answer: a HostdError REQUEST_CANCELLED, or the result when
   * the call finished first (so a write that completed is never reported as
   * not done). A signal already aborted rejects with its reason, and nothing
   * is sent.
   */
  signal?: AbortSignal;
}

/** The arguments of call(method, ...): params may be left out when none is required. */
export type CallArgs<M extends MethodName> = Record<string, never> extends Methods[M]['params']
  ? [params?: Methods[M]['params'], options?: CallOptions]
  : [params: Methods[M]['params'], options?: CallOptions];

/**
 * What tools.execute answers for tool T: the tool's own result when it
 * succeeded, and only the shared fields (content, error, warnings, ...)
 * when it failed (wire-contract §4). Test `ok` to reach the tool's fields.
 */
export type ToolOutcome<T extends ToolName> = (ToolResults[T] & { ok: true }) | (ToolResult & { ok: false });

/** Options of tools.execute besides the tool and its args. */
export interface ExecuteOptions extends CallOptions {
  /** The user turn the call belongs to; the repeat guard counts failed edits per turn only with it. */
  promptId?: string;
  /** Files the call's review records; hostd makes one up when absent. */
  toolCallId?: string;
}

export interface SpawnOptions {
  /** The hostd binary: a path, or a name looked up on PATH. Default "hostd". */
  bin?: string;
  /**
   * Arguments after `--stdio` (added unless present). Without `--standalone`
   * or `--state-dir DIR` the process forwards to the user's shared daemon,
   * starting it when none runs (wire-contract §1); tests should pass one of
   * them so that they get a daemon of their own.
   */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Something to undo: a handler registration. */
export interface Disposable {
  dispose(): void;
}

const stderrTailBytes = 8 * 1024;
const exitGraceMs = 5000;

// How the client ends its transport, and what it says about the end.
interface Transport {
  /** Ends the transport and waits for it (the process to exit, the socket to close). */
  close(): Promise<void>;
  /** Waits briefly for what ended the connection to be known (a process's exit status). */
  settle(): Promise<void>;
  /** Why the connection ended, for HostdConnectionError messages. */
  describeEnd(): string;
}

/**
 * HostdClient is one connection to hostd. Create it with HostdClient.spawn
 * or HostdClient.connect; end it with close().
 *
 * Locking: none is needed. Node runs the client on one thread, and
 * vscode-jsonrpc keeps requests and their answers apart by id, so calls may
 * overlap freely (hostd runs up to 64 of one connection at once).
 */
export class HostdClient {
  private readonly conn: rpc.MessageConnection;
  private readonly transport: Transport;
  private readonly reviewHandlers = new Set<(params: ReviewRecordedParams) => void>();
  private readonly closeHandlers = new Set<() => void>();
  private ended = false;
  private closing: Promise<void> | undefined;

  // Messages read from the transport, and messages vscode-jsonrpc has
  // handled (it handles one per event-loop turn): an answer that arrived
  // just before the connection closed is still delivered.
  private received = 0;
  private handled = 0;

  private constructor(reader: rpc.MessageReader, writer: rpc.MessageWriter, transport: Transport) {
    this.transport = transport;
    const counting: rpc.MessageReader = {
      onError: reader.onError,
      onClose: reader.onClose,
      onPartialMessage: reader.onPartialMessage,
      listen: (callback) =>
        reader.listen((message) => {
          this.received++;
          callback(message);
        }),
      dispose: () => reader.dispose(),
    };
    this.conn = rpc.createMessageConnection(counting, writer, undefined, {
      messageStrategy: {
        handleMessage: (message, next) => {
          try {
            next(message);
          } finally {
            this.handled++;
          }
        },
      },
    });
    this.conn.onNotification('review.recorded', (params: ReviewRecordedParams) => {
      for (const handler of [...this.reviewHandlers]) {
        try {
          handler(params);
        } catch (err) {
          // One handler's bug must not keep the event from the others.
          console.error('hostd client: a review.recorded handler threw:', err);
        }
      }
    });
    this.conn.onClose(() => {
      void this.end();
    });
    this.conn.listen();
  }

  /**
   * spawn starts `hostd --stdio` and connects to it over its stdin and
   * stdout. It rejects when the binary cannot be started.
   */
  static async spawn(options: SpawnOptions = {}): Promise<HostdClient> {
    const bin = options.bin ?? 'hostd';
    const args = options.args ?? [];
    const argv = args.includes('--stdio') ? [...args] : ['--stdio', ...args];
    const child = spawnProcess(bin, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env, cwd: options.cwd });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) => {
        const hint = err.code === 'ENOENT' ? ': no such file; pass spawn({bin}) the path of a hostd binary, or put hostd on PATH' : '';
        reject(new Error(`cannot start ${bin}: ${err.message}${hint}`));
      });
    });
    return new HostdClient(new rpc.StreamMessageReader(child.stdout!), new rpc.StreamMessageWriter(child.stdin!), processTransport(child, bin));
  }

  /**
   * connect opens a connection to the daemon listening on socketPath (the
   * default socket is $XDG_RUNTIME_DIR/hostd/hostd.sock, see
   * wire-contract §1). It rejects when nothing listens there.
   */
  static async connect(socketPath: string): Promise<HostdClient> {
    const socket = net.connect(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (err: NodeJS.ErrnoException) => {
        const hint =
          err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
            ? ': no hostd listens there; start one (hostd, or hostd --socket PATH) or use HostdClient.spawn'
            : '';
        reject(new Error(`cannot connect to ${socketPath}: ${err.message}${hint}`));
      });
    });
    let closed = false;
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return new HostdClient(new rpc.SocketMessageReader(socket), new rpc.SocketMessageWriter(socket), {
      async close() {
        closed = true;
        socket.end();
        const timer = setTimeout(() => socket.destroy(), exitGraceMs);
        await gone;
        clearTimeout(timer);
      },
      async settle() {},
      describeEnd() {
        return closed ? 'the client was closed' : `hostd closed the connection on ${socketPath}; reconnect once a daemon listens there`;
      },
    });
  }

  /** True once the connection has ended (closed by either side). */
  get closed(): boolean {
    return this.ended;
  }

  /**
   * call sends one request and resolves with its result, typed by method.
   * A JSON-RPC error answer rejects with HostdError; a connection that ends
   * first rejects with HostdConnectionError.
   */
  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<Methods[M]['result']> {
    const [params, options] = args;
    return this.request(method, params ?? {}, options) as Promise<Methods[M]['result']>;
  }

  /**
   * request sends any method with any params, unchecked: for methods newer
   * than this client's types, and for replaying recorded exchanges. Params
   * left out are sent as no params member at all.
   */
  async request(method: string, params?: unknown, options: CallOptions = {}): Promise<unknown> {
    const { signal } = options;
    if (signal?.aborted) {
      throw signal.reason;
    }
    if (this.ended) {
      throw new HostdConnectionError(method, `${method} not sent: ${this.transport.describeEnd()}`);
    }
    const source = new rpc.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const sent =
        params === undefined ? this.conn.sendRequest(method, source.token) : this.conn.sendRequest(method, params, source.token);
      return await sent;
    } catch (err) {
      throw await this.translate(method, err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  /** notify sends a notification (no answer), such as $/cancelRequest. */
  async notify(method: string, params?: unknown): Promise<void> {
    if (this.ended) {
      throw new HostdConnectionError(method, `${method} not sent: ${this.transport.describeEnd()}`);
    }
    try {
      await (params === undefined ? this.conn.sendNotification(method) : this.conn.sendNotification(method, params));
    } catch (err) {
      throw await this.translate(method, err);
    }
  }

  // translate turns vscode-jsonrpc's errors into the client's.
  private async translate(method: string, err: unknown): Promise<unknown> {
    if (err instanceof rpc.ResponseError) {
      // vscode-jsonrpc's own codes for a request that never got an answer.
      // A write can fail before the connection is seen to close, so the
      // transport is let say why it ended first (a process's exit status).
      if (err.code === rpc.ErrorCodes.PendingResponseRejected || err.code === rpc.ErrorCodes.MessageWriteError) {
        await this.transport.settle();
        return new HostdConnectionError(method, `${method} got no answer: ${this.transport.describeEnd()}`);
      }
      return new HostdError(method, err.code, err.message, err.data);
    }
    if (this.ended || (err instanceof Error && /connection is (closed|disposed)/i.test(err.message))) {
      await this.transport.settle();
      return new HostdConnectionError(method, `${method} not sent: ${this.transport.describeEnd()}`);
    }
    return err;
  }

  // The common methods, typed.

  /** host.info: identity, protocol version and limits. */
  info(options?: CallOptions): Promise<Methods['host.info']['result']> {
    return this.call('host.info', {}, options);
  }

  /** session.create: a session on a workspace (or the live one with that sessionId). */
  createSession(params: SessionCreateParams, options?: CallOptions): Promise<Methods['session.create']['result']> {
    return this.call('session.create', params, options);
  }

  /** session.delete: drops a session; its review records stay. */
  deleteSession(sessionId: string, options?: CallOptions): Promise<Methods['session.delete']['result']> {
    return this.call('session.delete', { sessionId }, options);
  }

  /** session.list: the live sessions, oldest first. */
  listSessions(options?: CallOptions): Promise<Methods['session.list']['result']> {
    return this.call('session.list', {}, options);
  }

  /** tools.definitions: each tool's name, description and inputSchema, to hand to the model as they are. */
  toolDefinitions(options?: CallOptions): Promise<Methods['tools.definitions']['result']> {
    return this.call('tools.definitions', {}, options);
  }

  /**
   * execute runs a built-in tool with typed args and result. A tool that
   * runs and fails resolves with ok: false; only a request hostd could not
   * serve rejects.
   */
  execute<T extends ToolName>(sessionId: string, tool: T, args: ToolArgs[T], options: ExecuteOptions = {}): Promise<ToolOutcome<T>> {
    const { signal, promptId, toolCallId } = options;
    // The generated tools.execute result is the shared ToolResult; hostd
    // answers the named tool's own result (x-tools in docs/openrpc.json).
    return this.call('tools.execute', { sessionId, tool, args, promptId, toolCallId }, { signal }) as Promise<unknown> as Promise<ToolOutcome<T>>;
  }

  /** review.list: a session's review entries, oldest first; path keeps one file's. */
  reviewList(sessionId: string, path?: string, options?: CallOptions): Promise<Methods['review.list']['result']> {
    return this.call('review.list', path === undefined ? { sessionId } : { sessionId, path }, options);
  }

  /** review.rollback: undoes every change of one tool call, all or nothing. */
  rollback(sessionId: string, toolCallId: string, options?: CallOptions): Promise<Methods['review.rollback']['result']> {
    return this.call('review.rollback', { sessionId, toolCallId }, options);
  }

  /**
   * runTool executes a model's tool call and returns the text to hand back
   * to the model; see tools.ts.
   */
  runTool(sessionId: string, call: ToolCall, options: { promptId?: string; signal?: AbortSignal } = {}): Promise<ToolRun> {
    return runTool(this, sessionId, call, options);
  }

  /** executeAny runs any tool by name with unchecked args (runTool's way in). */
  executeAny(sessionId: string, tool: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    const { signal, promptId, toolCallId } = options;
    return this.request('tools.execute', { sessionId, tool, args, promptId, toolCallId }, { signal }) as Promise<ToolResult>;
  }

  /**
   * onReviewRecorded calls handler for every review.recorded notification:
   * a tool call's changes were recorded, by any connection of the daemon.
   * A notification can be lost by a client that falls behind; review.list
   * is the authority.
   */
  onReviewRecorded(handler: (params: ReviewRecordedParams) => void): Disposable {
    this.reviewHandlers.add(handler);
    return { dispose: () => this.reviewHandlers.delete(handler) };
  }

  /** onClose calls handler once when the connection ends, whichever side ended it. */
  onClose(handler: () => void): Disposable {
    if (this.ended) {
      queueMicrotask(handler);
      return { dispose() {} };
    }
    this.closeHandlers.add(handler);
    return { dispose: () => this.closeHandlers.delete(handler) };
  }

  /**
   * close ends the connection: calls still waiting reject with
   * HostdConnectionError, and a spawned hostd is let exit (its stdin is
   * closed; it is killed if it has not exited within 5 seconds).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.transport.close();
      await this.end();
    })();
    return this.closing;
  }

  /** dispose is close() for code that cannot wait. */
  dispose(): void {
    void this.close();
  }

  // end runs once when the connection ends: it lets the transport say why,
  // then fails the calls still waiting and tells the close handlers.
  private async end(): Promise<void> {
    if (this.ended) {
      return;
    }
    this.ended = true;
    await this.transport.settle();
    while (this.handled < this.received) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.conn.dispose();
    for (const handler of [...this.closeHandlers]) {
      handler();
    }
    this.closeHandlers.clear();
  }
}

// processTransport ends a spawned hostd and keeps the end of its stderr
// for the messages of calls the process leaves unanswered.
function processTransport(child: ChildProcess, bin: string): Transport {
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-stderrTailBytes);
  });
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `status ${code}`;
      resolve();
    });
  });
  let closedByClient = false;
  return {
    async close() {
      closedByClient = true;
      child.stdin!.end();
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, exitGraceMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      await exited;
    },
    async settle() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
    },
    describeEnd() {
      if (closedByClient) {
        return 'the client was closed';
      }
      const how = exit === undefined ? `${bin} closed its stdout` : `${bin} exited with ${exit}`;
      const tail = stderr.trim();
      return `${how}; start a new client${tail ? ` (its stderr ends: ${tail})` : ''}`;
    },
  };
}
