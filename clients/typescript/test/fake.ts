// A stand-in daemon for what a real hostd cannot be made to do on demand:
// speak another protocol version, take longer than a timeout, answer
// OVERLOADED or HOST_BUSY, send a notification this client does not know.
// It speaks the same framing over a Unix socket, answers host.info as
// hostd does (with the protocolVersion it is given), and records what it
// was sent.

import net from 'node:net';
import path from 'node:path';
import * as rpc from 'vscode-jsonrpc/node';

import { tempDir } from './hostd';

export interface Fake {
  socketPath: string;
  /** The methods of the requests received, in order. */
  requests: string[];
  /** The methods of the requests cancelled with $/cancelRequest. */
  cancelled: string[];
  /** Resolves when a connection closes. */
  disconnected: Promise<void>;
  close(): void;
}

/** The handlers of one connection, by method; each gets params and the cancellation token. */
export type FakeHandlers = Record<string, (params: unknown, token: rpc.CancellationToken, conn: rpc.MessageConnection) => unknown>;

export async function fakeDaemon(handlers: FakeHandlers = {}, protocolVersion = 1): Promise<Fake> {
  const socketPath = path.join(tempDir('hd-'), 'f.sock');
  const requests: string[] = [];
  const cancelled: string[] = [];
  let disconnect: () => void = () => {};
  const disconnected = new Promise<void>((resolve) => (disconnect = resolve));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      disconnect();
    });
    const conn = rpc.createMessageConnection(new rpc.SocketMessageReader(socket), new rpc.SocketMessageWriter(socket));
    const all: FakeHandlers = {
      'host.info': () => ({ name: 'hostd', version: 'fake', protocolVersion, pid: process.pid, startedAt: new Date().toISOString(), grammars: [], limits: {} }),
      ...handlers,
    };
    for (const [method, handler] of Object.entries(all)) {
      conn.onRequest(method, (params: unknown, token: rpc.CancellationToken) => {
        requests.push(method);
        token.onCancellationRequested(() => cancelled.push(method));
        return handler(params, token, conn);
      });
    }
    conn.listen();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    requests,
    cancelled,
    disconnected,
    close: () => {
      for (const s of sockets) {
        s.destroy();
      }
      server.close();
    },
  };
}

/** untilCancelled answers REQUEST_CANCELLED once the request is cancelled, as hostd does. */
export function untilCancelled(token: rpc.CancellationToken): Promise<unknown> {
  return new Promise((resolve) => {
    token.onCancellationRequested(() => resolve(new rpc.ResponseError(-32800, 'request cancelled', { code: 'REQUEST_CANCELLED' })));
  });
}

/** never is an answer that never comes. */
export function never(): Promise<unknown> {
  return new Promise(() => {});
}
