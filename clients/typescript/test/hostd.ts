// What the tests share: the hostd binary under test, scratch directories, and a
// socket daemon of the test's own.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The package's directory (tests run from build/test). */
export const packageRoot = path.resolve(__dirname, '..', '..');
/** The repository's root. */
export const repoRoot = path.resolve(packageRoot, '..', '..');

let built: string | undefined;

// What to remove and stop when the test process exits, registered once.
const cleanups: Array<() => void> = [];
process.on('exit', () => {
  for (const f of cleanups) {
    f();
  }
});

/**
 * hostdBinary is HOSTD_BIN, or a hostd built from this checkout with the Go
 * toolchain (once per test process).
 */
export function hostdBinary(): string {
  if (process.env['HOSTD_BIN']) {
    return process.env['HOSTD_BIN'];
  }
  if (built === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostd-client-bin-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    built = path.join(dir, 'hostd');
    execFileSync('go', ['build', '-o', built, './cmd/hostd'], { cwd: repoRoot, stdio: 'inherit' });
  }
  return built;
}

/** tempDir is a fresh directory removed when the process exits. */
export function tempDir(prefix = 'hostd-client-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** standaloneArgs are spawn args giving the client a daemon of its own. */
export function standaloneArgs(): string[] {
  return ['--state-dir', tempDir('hostd-state-')];
}

export interface SocketDaemon {
  child: ChildProcess;
  socketPath: string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** socketPath is a fresh socket path in a directory of its own, removed when the process exits. */
export function socketPath(): string {
  // A short directory: a socket path is limited to 108 bytes.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hd-'));
  fs.chmodSync(dir, 0o700);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'hostd.sock');
}

/**
 * socketDaemon starts `hostd --socket PATH --state-dir DIR` (plus extra
 * args) and resolves once it listens; at is the socket path, default a
 * fresh one.
 */
export async function socketDaemon(extra: string[] = [], at: string = socketPath()): Promise<SocketDaemon> {
  const socketPath = at;
  const child = spawn(hostdBinary(), ['--socket', socketPath, '--state-dir', tempDir('hostd-state-'), ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hostd did not start listening:\n${stderr}`)), 30000);
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes(`listening on ${socketPath}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`hostd exited before listening:\n${stderr}`));
    });
  });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, socketPath, stderr: () => stderr, exited };
}
