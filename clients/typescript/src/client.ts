// HostdClient: a connection to hostd, either to a spawned `hostd --stdio`
// or to a daemon's Unix socket, with typed calls (the types are generated
// from docs/openrpc.json), the protocol-version check on connect, a
// timeout per call, notifications as events, restart on exit when asked
// for, and the tool-call glue of tools.ts. The wire work is connection.ts;
// restarting is restart.ts.

import { Link } from './connection';
import { HostdConnectionError, HostdProtocolError } from './errors';
import {
  protocolVersion,
  type HostInfoResult,
  type MethodName,
  type Methods,
  type ReviewRecordedParams,
  type SessionCreateParams,
  type ToolArgs,
  type ToolName,
} from './generated';
import type { CallOptions, ClientOptions, Disposable, RestartEvent, SpawnOptions } from './options';
import { Restarter, SessionMemory } from './restart';
import { runTool, type AnyToolResult, type RunToolOptions, type ToolCall, type ToolOutcome, type ToolRun } from './tools';
import { hostdBinary } from './binary';
import { socketTransport, spawnTransport, type Transport } from './transport';

/** The arguments of call(method, ...): params may be left out when none is required. */
export type CallArgs<M extends MethodName> = Record<string, never> extends Methods[M]['params']
  ? [params?: Methods[M]['params'], options?: CallOptions]
  : [params: Methods[M]['params'], options?: CallOptions];

/** Options of tools.execute besides the tool and its args. */
export interface ExecuteOptions extends CallOptions {
  /** The user turn the call belongs to; the repeat guard counts failed edits per turn only with it. */
  promptId?: string;
  /** Files the call's review records; hostd makes one up when absent. */
  toolCallId?: string;
}

/** The default of ClientOptions.requestTimeoutMs. */
export const defaultRequestTimeoutMs = 60_000;

/**
 * HostdClient is one connection to hostd (one at a time, with restart).
 * Create it with HostdClient.spawn or HostdClient.connect; end it with
 * close().
 *
 * Locking: none is needed. Node runs the client on one thread, and
 * vscode-jsonrpc keeps requests and their answers apart by id, so calls may
 * overlap freely (hostd runs up to 64 of one connection at once).
 */
export class HostdClient {
  private link: Link | undefined;
  private daemonInfo: HostInfoResult | undefined;
  private ended = false;
  // Why the client ended, for the calls made after it.
  private endReason = 'the client was closed';
  private closing: Promise<void> | undefined;
  // A restart in progress; see linkEnded.
  private restarting: Promise<void> | undefined;
  private readonly restarter: Restarter | undefined;
  private readonly sessions = new SessionMemory();
  private readonly timeoutMs: number;

  private readonly reviewHandlers = new Set<(params: ReviewRecordedParams) => void>();
  private readonly notificationHandlers = new Set<(method: string, params: unknown) => void>();
  private readonly closeHandlers = new Set<() => void>();
  private readonly restartHandlers = new Set<(event: RestartEvent) => void>();
  private readonly stderrHandlers = new Set<(text: string) => void>();

  private constructor(
    private readonly open: () => Promise<Transport>,
    private readonly where: string,
    private readonly options: ClientOptions,
  ) {
    this.timeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
    const restart = options.restart === true ? {} : options.restart || undefined;
    if (restart !== undefined) {
      this.restarter = new Restarter(restart, () => this.openLink(), (link) => this.sessions.recreate(link, this.timeoutMs));
    }
  }

  /**
   * spawn starts `hostd --stdio` and connects to it over its stdin and
   * stdout, then checks its protocol version. The binary is options.bin,
   * else $HOSTD_BIN, else the one in the installed platform package
   * (hostdBinary). It rejects with HostdBinaryError when there is none,
   * and when the binary cannot be started, exits first, or speaks another
   * protocol (HostdProtocolError).
   */
  static async spawn(options: SpawnOptions = {}): Promise<HostdClient> {
    const bin = options.bin ?? hostdBinary();
    const args = options.args ?? [];
    const argv = args.includes('--stdio') ? [...args] : ['--stdio', ...args];
    const client: HostdClient = new HostdClient(
      () =>
        spawnTransport({
          bin,
          argv,
          env: options.env,
          cwd: options.cwd,
          stderr: options.stderr ?? 'pipe',
          onStderr: (text) => emit(client.stderrHandlers, 'stderr', text),
        }),
      bin,
      options,
    );
    client.link = await client.openLink();
    return client;
  }

  /**
   * connect opens a connection to the daemon listening on socketPath, then
   * checks its protocol version. It rejects when nothing listens there, or
   * the daemon speaks another protocol. The client computes no default
   * path: pass the one a plain hostd listens on, which `hostd --help`
   * prints (wire-contract §1). It is the user's own, derived from who the
   * user is: on Linux /run/user/$UID/hostd/hostd.sock when /run/user/$UID
   * is the user's own directory, else /tmp/hostd-$UID/hostd.sock; on macOS
   * hostd/hostd.sock in the user's temporary directory as the system
   * reports it; on Windows the named pipe \\.\pipe\hostd-<SID>. No
   * environment variable moves it (XDG_RUNTIME_DIR is not read); hostd's
   * --socket does.
   */
  static async connect(socketPath: string, options: ClientOptions = {}): Promise<HostdClient> {
    const client = new HostdClient(() => socketTransport(socketPath), `the hostd on ${socketPath}`, options);
    client.link = await client.openLink();
    return client;
  }

  /** True once the client has ended: closed, or its connection ended with no restart. */
  get closed(): boolean {
    return this.ended;
  }

  /** host.info of the daemon, as the protocol check on connect (and on each restart) got it; undefined with checkProtocol false. */
  get hostInfo(): HostInfoResult | undefined {
    return this.daemonInfo;
  }

  /**
   * call sends one request and resolves with its result, typed by method.
   * A JSON-RPC error answer rejects with HostdError; a connection that ends
   * first rejects with HostdConnectionError; the timeout, with
   * HostdTimeoutError.
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
    const link = await this.current(method);
    const result = await link.request(method, params, signal, options.timeoutMs ?? this.timeoutMs);
    if (this.restarter !== undefined) {
      this.sessions.observe(method, params, result);
    }
    return result;
  }

  /** notify sends a notification (no answer), such as $/cancelRequest. */
  async notify(method: string, params?: unknown): Promise<void> {
    const link = await this.current(method);
    await link.notify(method, params);
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
   * runs and fails resolves with ok: false and a typed error; only a
   * request hostd could not serve rejects.
   */
  execute<T extends ToolName>(sessionId: string, tool: T, args: ToolArgs[T], options: ExecuteOptions = {}): Promise<ToolOutcome<T>> {
    // The generated tools.execute result is the shared ToolResult; hostd
    // answers the named tool's own result (x-tools in docs/openrpc.json).
    return this.executeAny(sessionId, tool, args, options) as Promise<ToolOutcome<T>>;
  }

  /** executeAny runs any tool by name with unchecked args (runTool's way in). */
  executeAny(sessionId: string, tool: string, args: unknown, options: ExecuteOptions = {}): Promise<AnyToolResult> {
    const { promptId, toolCallId, ...call } = options;
    return this.request('tools.execute', { sessionId, tool, args, promptId, toolCallId }, call) as Promise<AnyToolResult>;
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
   * review.rewind: undoes, all or nothing, every change of a user turn
   * ({ promptId }), of a call and every later one ({ since }), of one call
   * ({ toolCallId }) or of the session ({ all: true }). dryRun previews it
   * file by file; resolve says what to do with a file changed since the
   * agent's last change to it (keepTheirs, merge or force). A conflict
   * without a resolve rejects with ROLLBACK_CONFLICT and restores nothing.
   */
  rewind(sessionId: string, what: Omit<Methods['review.rewind']['params'], 'sessionId'>, options?: CallOptions): Promise<Methods['review.rewind']['result']> {
    return this.call('review.rewind', { ...what, sessionId }, options);
  }

  /**
   * runTool executes a model's tool call and returns the text to hand back
   * to the model; see tools.ts.
   */
  runTool(sessionId: string, call: ToolCall, options: RunToolOptions = {}): Promise<ToolRun> {
    return runTool(this, sessionId, call, options);
  }

  // Events.

  /**
   * onReviewRecorded calls handler for every review.recorded notification:
   * a tool call's changes were recorded, by any connection of the daemon.
   * A notification can be lost by a client that falls behind; review.list
   * is the authority.
   */
  onReviewRecorded(handler: (params: ReviewRecordedParams) => void): Disposable {
    return listen(this.reviewHandlers, handler);
  }

  /**
   * onNotification calls handler for every notification the daemon sends,
   * review.recorded included, and ones this client has no types for (a
   * newer daemon's; wire-contract §6 says to ignore those you do not know).
   */
  onNotification(handler: (method: string, params: unknown) => void): Disposable {
    return listen(this.notificationHandlers, handler);
  }

  /** onStderr calls handler with each piece of a spawned hostd's stderr (with the default stderr: "pipe"). */
  onStderr(handler: (text: string) => void): Disposable {
    return listen(this.stderrHandlers, handler);
  }

  /** onRestart calls handler each time restart has brought up a new connection. */
  onRestart(handler: (event: RestartEvent) => void): Disposable {
    return listen(this.restartHandlers, handler);
  }

  /** onClose calls handler once when the client ends: closed, or its connection ended with no restart left. */
  onClose(handler: () => void): Disposable {
    if (this.ended) {
      queueMicrotask(handler);
      return { dispose() {} };
    }
    return listen(this.closeHandlers, handler);
  }

  /**
   * close ends the client: calls still waiting reject with
   * HostdConnectionError, and a spawned hostd is let exit (its stdin is
   * closed; it is killed if it has not exited within 5 seconds).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.restarter?.stop();
      await this.link?.close();
      this.finish('the client was closed');
    })();
    return this.closing;
  }

  /** dispose is close() for code that cannot wait. */
  dispose(): void {
    void this.close();
  }

  // current is the link to send on: the live one, or the one a restart in
  // progress brings up.
  private async current(method: string): Promise<Link> {
    if (this.restarting !== undefined) {
      await this.restarting;
    }
    if (this.link === undefined || this.ended) {
      throw new HostdConnectionError(method, `${method} not sent: ${this.endReason}`);
    }
    return this.link;
  }

  // openLink opens a transport, starts a link on it and checks the
  // daemon's protocol; a link that fails the check is closed.
  private async openLink(): Promise<Link> {
    const transport = await this.open();
    const link = new Link(transport, {
      trace: this.options.trace,
      notification: (method, params) => this.dispatch(method, params),
      ended: (l) => this.linkEnded(l),
      restarting: () => this.restarter !== undefined && this.closing === undefined && this.restarter.canRestart(),
    });
    if (this.options.checkProtocol === false) {
      return link;
    }
    try {
      const info = (await link.request('host.info', {}, undefined, this.timeoutMs)) as HostInfoResult;
      if (info.protocolVersion !== protocolVersion) {
        throw new HostdProtocolError(this.where, info.protocolVersion, info.version, protocolVersion);
      }
      this.daemonInfo = info;
    } catch (err) {
      await link.close();
      throw err;
    }
    return link;
  }

  // linkEnded runs when a link has ended: the current one ends the client,
  // or starts a restart; a link being replaced or checked is not current.
  private linkEnded(link: Link): void {
    if (link !== this.link) {
      return;
    }
    const reason = link.describeEnd();
    this.link = undefined;
    const restarter = this.restarter;
    if (restarter === undefined || this.closing !== undefined) {
      this.finish(reason);
      return;
    }
    if (!restarter.canRestart()) {
      this.finish(`${reason} (no restart left: ${restarter.describeBudget()})`);
      return;
    }
    // Calls made meanwhile wait for this, which settles once the new link
    // is in place or the client has ended.
    const restarting: Promise<void> = restarter.start(reason).then(
      ({ link: next, event }) => {
        this.restarting = undefined;
        this.link = next;
        emit(this.restartHandlers, 'restart', event);
        // The new link may have ended while the sessions were created.
        if (next.isEnded) {
          this.linkEnded(next);
        }
      },
      (err: unknown) => {
        this.restarting = undefined;
        this.finish(this.closing !== undefined ? 'the client was closed' : err instanceof Error ? err.message : String(err));
      },
    );
    this.restarting = restarting;
  }

  // finish ends the client once, and tells the close handlers.
  private finish(reason: string): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.endReason = reason;
    for (const handler of [...this.closeHandlers]) {
      handler();
    }
    this.closeHandlers.clear();
  }

  private dispatch(method: string, params: unknown): void {
    if (method === 'review.recorded') {
      emit(this.reviewHandlers, 'review.recorded', params as ReviewRecordedParams);
    }
    for (const handler of [...this.notificationHandlers]) {
      try {
        handler(method, params);
      } catch (err) {
        console.error('hostd client: a notification handler threw:', err);
      }
    }
  }
}

function listen<H>(set: Set<H>, handler: H): Disposable {
  set.add(handler);
  return { dispose: () => set.delete(handler) };
}

// emit calls every handler; one handler's bug must not keep the event from
// the others.
function emit<T>(set: Set<(value: T) => void>, what: string, value: T): void {
  for (const handler of [...set]) {
    try {
      handler(value);
    } catch (err) {
      console.error(`hostd client: a ${what} handler threw:`, err);
    }
  }
}
