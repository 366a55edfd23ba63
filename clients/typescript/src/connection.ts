// Link: one vscode-jsonrpc connection over one transport. It sends
// requests with cancellation ($/cancelRequest) and a timeout, hands every
// message to the trace hook and every notification to the client, turns
// vscode-jsonrpc's errors into the client's, and tells the client once
// when it has ended. HostdClient (client.ts) holds one Link at a time and
// makes a new one when it restarts.

import * as rpc from 'vscode-jsonrpc/node';

import { HostdConnectionError, HostdError, HostdTimeoutError } from './errors';
import { wireErrors } from './generated';
import type { AbortSignalLike, JsonRpcMessage, TraceEvent } from './options';
import type { Transport } from './transport';

export interface LinkHooks {
  trace: ((event: TraceEvent) => void) | undefined;
  notification(method: string, params: unknown): void;
  /** Called once, when the link has ended and its waiting calls have failed. */
  ended(link: Link): void;
  /** True when the client will start a new link after this one ends. */
  restarting(): boolean;
}

// REQUEST_CANCELLED, the answer to $/cancelRequest (LSP's code).
const requestCancelled = wireErrors.REQUEST_CANCELLED.code;

// How long a timed-out call waits for the daemon to answer its
// $/cancelRequest before it is given up without an answer.
const cancelGraceMs = 2000;

export class Link {
  private readonly conn: rpc.MessageConnection;
  private ended = false;
  private ending: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  // Messages read from the transport, and messages vscode-jsonrpc has
  // handled (it handles one per event-loop turn): an answer that arrived
  // just before the connection closed is still delivered.
  private received = 0;
  private handled = 0;

  constructor(
    private readonly transport: Transport,
    private readonly hooks: LinkHooks,
  ) {
    const { reader, writer } = transport;
    const counting: rpc.MessageReader = {
      onError: reader.onError,
      onClose: reader.onClose,
      onPartialMessage: reader.onPartialMessage,
      listen: (callback) =>
        reader.listen((message) => {
          this.received++;
          this.trace('receive', message);
          callback(message);
        }),
      dispose: () => reader.dispose(),
    };
    const tracing: rpc.MessageWriter = {
      onError: writer.onError,
      onClose: writer.onClose,
      write: (message) => {
        this.trace('send', message);
        return writer.write(message);
      },
      end: () => writer.end(),
      dispose: () => writer.dispose(),
    };
    this.conn = rpc.createMessageConnection(counting, tracing, undefined, {
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
    // The star handler gets every notification, known or not.
    this.conn.onNotification((method: string, params: unknown) => hooks.notification(method, params));
    this.conn.onClose(() => {
      void this.end();
    });
    this.conn.listen();
  }

  /** True once the connection has ended. */
  get isEnded(): boolean {
    return this.ended;
  }

  describeEnd(): string {
    return this.transport.describeEnd(this.hooks.restarting());
  }

  /**
   * request sends one request. Aborting signal sends $/cancelRequest and
   * the call settles with the daemon's answer; timeoutMs (0: none) does the
   * same, then rejects with HostdTimeoutError unless the result came first.
   */
  async request(method: string, params: unknown, signal: AbortSignalLike | undefined, timeoutMs: number): Promise<unknown> {
    if (signal?.aborted) {
      throw signal.reason;
    }
    if (this.ended) {
      throw new HostdConnectionError(method, `${method} not sent: ${this.describeEnd()}`);
    }
    const source = new rpc.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    let grace: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      const sent = params === undefined ? this.conn.sendRequest(method, source.token) : this.conn.sendRequest(method, params, source.token);
      if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) {
        return await sent;
      }
      // The answer may come after the call was given up; it is dropped.
      sent.catch(() => {});
      const gaveUp = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          source.cancel();
          grace = setTimeout(() => reject(new HostdTimeoutError(method, timeoutMs, false)), cancelGraceMs);
        }, timeoutMs);
      });
      return await Promise.race([sent, gaveUp]);
    } catch (err) {
      if (timedOut && err instanceof rpc.ResponseError && err.code === requestCancelled) {
        throw new HostdTimeoutError(method, timeoutMs, true);
      }
      throw await this.translate(method, err);
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  /** notify sends a notification (no answer). */
  async notify(method: string, params: unknown): Promise<void> {
    if (this.ended) {
      throw new HostdConnectionError(method, `${method} not sent: ${this.describeEnd()}`);
    }
    try {
      await (params === undefined ? this.conn.sendNotification(method) : this.conn.sendNotification(method, params));
    } catch (err) {
      throw await this.translate(method, err);
    }
  }

  /** close ends the transport and waits for the link to end. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.transport.close();
      await this.end();
    })();
    return this.closing;
  }

  private trace(direction: 'send' | 'receive', message: rpc.Message): void {
    if (this.hooks.trace === undefined) {
      return;
    }
    try {
      this.hooks.trace({ direction, message: message as JsonRpcMessage });
    } catch (err) {
      // A tracer's bug must not break the connection.
      console.error('hostd client: the trace hook threw:', err);
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
        return new HostdConnectionError(method, `${method} got no answer: ${this.describeEnd()}`);
      }
      return new HostdError(method, err.code, err.message, err.data);
    }
    if (this.ended || (err instanceof Error && /connection is (closed|disposed)/i.test(err.message))) {
      await this.transport.settle();
      return new HostdConnectionError(method, `${method} not sent: ${this.describeEnd()}`);
    }
    return err;
  }

  // end runs once when the connection ends, whoever calls it first: it
  // lets the transport say why, then fails the calls still waiting and
  // tells the client. Every caller waits for all of it.
  private end(): Promise<void> {
    this.ended = true;
    this.ending ??= (async () => {
      await this.transport.settle();
      while (this.handled < this.received) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.conn.dispose();
      this.hooks.ended(this);
    })();
    return this.ending;
  }
}
