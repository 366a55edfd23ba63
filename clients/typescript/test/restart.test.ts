// Restart on exit (ClientOptions.restart) against a real hostd killed with
// SIGKILL: the call in flight fails, calls made meanwhile wait, the
// sessions come back under their ids with their review records, the
// restart budget and a daemon that will not come back end the client, and
// close() stops a restart in progress.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { HostdClient, HostdConnectionError, type RestartEvent } from '../src/index';
import { hostdBinary, socketDaemon, socketPath, tempDir } from './hostd';

const nextRestart = (client: HostdClient) => new Promise<RestartEvent>((resolve) => {
  const d = client.onRestart((e) => {
    d.dispose();
    resolve(e);
  });
});

test('a spawned hostd that dies is spawned again, with this client\'s sessions', async () => {
  const state = tempDir('hostd-state-');
  let killed = false;
  let meanwhile: Promise<string[]> | undefined;
  const client: HostdClient = await HostdClient.spawn({
    bin: hostdBinary(),
    args: ['--state-dir', state],
    restart: true,
    // The new process's host.info is sent while the restart is under way:
    // a call made then waits for the new connection and its sessions.
    trace: (e) => {
      if (killed && meanwhile === undefined && e.direction === 'send' && e.message.method === 'host.info') {
        meanwhile = client.listSessions().then((l) => l.sessions.map((s) => s.sessionId));
      }
    },
  });
  try {
    const workspace = tempDir('ws-');
    await client.createSession({ workspace, sessionId: 's-keep' });
    await client.createSession({ workspace, sessionId: 's-gone' });
    await client.deleteSession('s-gone');
    const w = await client.execute('s-keep', 'write', { path: 'a.txt', content: 'one\n' }, { toolCallId: 'w-1' });
    assert.ok(w.ok, w.content);
    const pid = client.hostInfo!.pid;
    const restarted = nextRestart(client);

    const inflight = client.listSessions();
    killed = true;
    process.kill(pid, 'SIGKILL');
    await assert.rejects(inflight, (err: unknown) => {
      assert.ok(err instanceof HostdConnectionError, String(err));
      assert.match(err.message, /hostd exited with signal SIGKILL; the client is starting a new one/);
      return true;
    });
    const event = await restarted;
    assert.match(event.reason, /exited with signal SIGKILL/);
    assert.deepEqual(event.sessions, ['s-keep']);
    assert.deepEqual(event.failed, []);
    assert.ok(meanwhile, 'no call was made during the restart');
    assert.deepEqual(await meanwhile, ['s-keep']);

    assert.equal(client.closed, false);
    assert.notEqual(client.hostInfo!.pid, pid);
    // The review records are durable; the tags the model held are not.
    assert.deepEqual(
      (await client.reviewList('s-keep')).entries.map((e) => e.toolCallId),
      ['w-1'],
    );
    const edit = await client.execute('s-keep', 'edit', { path: 'a.txt', tag: w.tag, ops: 'PUT 1.=1:\n+ONE' });
    assert.equal(edit.ok ? 'ok' : edit.error.code, 'EDIT_TAG_UNKNOWN');
  } finally {
    await client.close();
  }
  assert.equal(client.closed, true);
});

test('past maxRestarts within the window the client ends, and says so', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: ['--state-dir', tempDir('hostd-state-')], restart: { maxRestarts: 1 } });
  try {
    const restarted = nextRestart(client);
    process.kill(client.hostInfo!.pid, 'SIGKILL');
    await restarted;
    const ended = new Promise<void>((resolve) => client.onClose(resolve));
    process.kill(client.hostInfo!.pid, 'SIGKILL');
    await ended;
    assert.equal(client.closed, true);
    await assert.rejects(client.listSessions(), /^HostdConnectionError: session\.list not sent: .*hostd exited with signal SIGKILL; start a new client.* \(no restart left: 1 restarts within 180 s\)$/s);
  } finally {
    await client.close();
  }
});

// A stand-in for a hostd that serves once and then fails to start: the
// first run leaves a marker, later ones see it and exit.
function onceArgs(marker: string): string[] {
  const script = 'f=$1; shift; if [ -e "$f" ]; then echo "hostd: not today" >&2; exit 1; fi; : > "$f"; exec "$@"';
  return ['-c', script, 'sh', marker, hostdBinary(), '--stdio', '--state-dir', tempDir('hostd-state-')];
}

test('a hostd that does not come back ends the client after the restart\'s tries, naming why', async () => {
  const client = await HostdClient.spawn({ bin: 'sh', args: onceArgs(path.join(tempDir(), 'used')), restart: true });
  const ended = new Promise<void>((resolve) => client.onClose(resolve));
  let restarts = 0;
  client.onRestart(() => restarts++);
  process.kill(client.hostInfo!.pid, 'SIGKILL');
  await ended;
  assert.equal(restarts, 0);
  await assert.rejects(
    client.info(),
    /host\.info not sent: sh exited with signal SIGKILL; the client is starting a new one.*; restarting failed \(6 tries\): host\.info got no answer: sh exited with status 1; .*\(its stderr ends: hostd: not today\)/s,
  );
  await client.close();
});

test('close() stops a restart in progress at once', async () => {
  const client = await HostdClient.spawn({ bin: 'sh', args: onceArgs(path.join(tempDir(), 'used')), restart: true });
  let stderr = '';
  const refused = new Promise<void>((resolve) =>
    client.onStderr((text) => {
      stderr += text;
      if (stderr.includes('not today')) {
        resolve();
      }
    }),
  );
  process.kill(client.hostInfo!.pid, 'SIGKILL');
  await refused; // the first try failed; the restart waits before the next
  const started = Date.now();
  await client.close();
  assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
  assert.equal(client.closed, true);
  await assert.rejects(client.info(), /host\.info not sent: the client was closed/);
});

test('a socket whose daemon dies is dialed again, and reaches the daemon started there next', async () => {
  const at = socketPath();
  const first = await socketDaemon([], at);
  const client = await HostdClient.connect(at, { restart: true });
  try {
    const workspace = tempDir('ws-');
    fs.writeFileSync(path.join(workspace, 'x.txt'), 'x\n');
    await client.createSession({ workspace, sessionId: 's-sock' });
    const restarted = nextRestart(client);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await socketDaemon([], at);
    const event = await restarted;
    assert.match(event.reason, /hostd closed the connection on .*hostd\.sock; the client is reconnecting/);
    assert.deepEqual(event.sessions, ['s-sock']);
    assert.equal(client.hostInfo!.pid, second.child.pid);
    const read = await client.execute('s-sock', 'read', { path: 'x.txt' });
    assert.ok(read.ok, read.content);
    second.child.kill('SIGTERM');
    await second.exited;
  } finally {
    await client.close();
  }
});
