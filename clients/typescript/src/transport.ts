// The two ways to reach hostd: a spawned `hostd --stdio` (its stdin and
// stdout carry the frames, its stderr is kept or passed through) and a
// daemon's Unix socket. Each gives vscode-jsonrpc a reader and a writer,
// ends itself on close, and says why it ended for error messages.

import { spawn as spawnProcess } from 'node:child_process';
import net from 'node:net';
import * as rpc from 'vscode-jsonrpc/node';

import type { StderrMode } from './options';

/** A connection's byte stream, and what the client needs to know about its end. */
export interface Transport {
  readonly reader: rpc.MessageReader;
  readonly writer: rpc.MessageWriter;
  /** Ends the transport and waits for it (the process to exit, the socket to close). */
  close(): Promise<void>;
  /** Waits briefly for what ended the connection to be known (a process's exit status). */
  settle(): Promise<void>;
  /**
   * Why the connection ended and what to do, for HostdConnectionError
   * messages; restarting says the client is already starting a new one.
   */
  describeEnd(restarting: boolean): string;
}


export interface ProcessOptions {
  bin: string;
  argv: string[];
  env: Record<string, string | undefined> | undefined;
  cwd: string | undefined;
  stderr: StderrMode;
  /** Gets each piece of stderr the process writes, with stderr 'pipe'. */
  onStderr: (text: string) => void;
}

const stderrTailBytes = 8 * 1024;
const exitGraceMs = 5000;
const settleMs = 2000;

/**
 * spawnTransport starts the process and connects to its stdin and stdout.
 * It rejects when the binary cannot be started.
 */
export async function spawnTransport(o: ProcessOptions): Promise<Transport> {
  const child = spawnProcess(o.bin, o.argv, { stdio: ['pipe', 'pipe', o.stderr], env: o.env, cwd: o.cwd });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err: NodeJS.ErrnoException) => {
      const hint = err.code === 'ENOENT' ? ': no such file; pass spawn({bin}) or set HOSTD_BIN to the path of a hostd binary' : '';
      reject(new Error(`cannot start ${o.bin}: ${err.message}${hint}`));
    });
  });
  let stderr = '';
  if (child.stderr) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-stderrTailBytes);
      o.onStderr(chunk);
    });
  }
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `status ${code}`;
      resolve();
    });
  });
  let closedByClient = false;
  return {
    reader: new rpc.StreamMessageReader(child.stdout!),
    writer: new rpc.StreamMessageWriter(child.stdin!),
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
    settle: () => within(exited, settleMs),
    describeEnd(restarting) {
      if (closedByClient) {
        return 'the client was closed';
      }
      const how = exit === undefined ? `${o.bin} closed its stdout` : `${o.bin} exited with ${exit}`;
      const next = restarting ? 'the client is starting a new one' : 'start a new client';
      const tail = stderr.trim();
      const said = o.stderr === 'inherit' ? ' (its stderr went to this process\'s stderr)' : tail ? ` (its stderr ends: ${tail})` : '';
      return `${how}; ${next}${said}`;
    },
  };
}

/**
 * socketTransport opens a connection to the daemon listening on
 * socketPath. It rejects when nothing listens there.
 */
export async function socketTransport(socketPath: string): Promise<Transport> {
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
  let closedByClient = false;
  const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    reader: new rpc.SocketMessageReader(socket),
    writer: new rpc.SocketMessageWriter(socket),
    async close() {
      closedByClient = true;
      socket.end();
      const timer = setTimeout(() => socket.destroy(), exitGraceMs);
      await gone;
      clearTimeout(timer);
    },
    settle: async () => {},
    describeEnd(restarting) {
      if (closedByClient) {
        return 'the client was closed';
      }
      return `hostd closed the connection on ${socketPath}; ${restarting ? 'the client is reconnecting' : 'reconnect once a daemon listens there'}`;
    },
  };
}

// within waits for p, or for ms at most.
async function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
