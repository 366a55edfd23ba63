// What users of vscode-jsonrpc and the MCP SDK expect of a client: the
// protocol-version check on connect, a timeout per call that cancels,
// a stderr option, a trace hook and a hook for every notification. Real
// hostd where it can show the behaviour, a stand-in (fake.ts) where hostd
// cannot be made to (another protocol, a call that outlasts a timeout).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import {
  HostdClient,
  HostdProtocolError,
  HostdTimeoutError,
  protocolVersion,
  type ReviewRecordedParams,
  type TraceEvent,
} from '../src/index';
import { fakeDaemon, never, untilCancelled } from './fake';
import { hostdBinary, packageRoot, standaloneArgs, tempDir } from './hostd';

test('connect checks the protocol version: the same is let in, hostInfo has it', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    assert.equal(client.hostInfo?.protocolVersion, protocolVersion);
    assert.equal(client.hostInfo?.name, 'hostd');
  } finally {
    await client.close();
  }
});

test('a daemon of another protocol version is refused, naming both and the way out, after host.info alone', async () => {
  for (const [theirs, advice] of [
    [protocolVersion + 1, /update @hostd\/client to a release for that protocol/],
    [protocolVersion - 1, /update hostd, or stop the old daemon \(hostctl shutdown\)/],
  ] as const) {
    const fake = await fakeDaemon({ 'session.list': () => ({ sessions: [] }) }, theirs);
    try {
      await assert.rejects(HostdClient.connect(fake.socketPath), (err: unknown) => {
        assert.ok(err instanceof HostdProtocolError, String(err));
        assert.equal(err.daemonProtocol, theirs);
        assert.equal(err.clientProtocol, protocolVersion);
        assert.match(err.message, new RegExp(`^the hostd on .*f\\.sock speaks hostd protocol ${theirs} \\(hostd fake\\) and this client protocol ${protocolVersion}: `));
        assert.match(err.message, advice);
        return true;
      });
      await fake.disconnected; // the client closed the connection
      assert.deepEqual(fake.requests, ['host.info']);
    } finally {
      fake.close();
    }
  }
  // checkProtocol: false sends nothing of its own.
  const fake = await fakeDaemon({ 'session.list': () => ({ sessions: [] }) }, protocolVersion + 1);
  const client = await HostdClient.connect(fake.socketPath, { checkProtocol: false });
  try {
    assert.deepEqual(await client.listSessions(), { sessions: [] });
    assert.deepEqual(fake.requests, ['session.list']);
    assert.equal(client.hostInfo, undefined);
  } finally {
    await client.close();
    fake.close();
  }
});

test('a call past its timeout is cancelled with $/cancelRequest and rejects with HostdTimeoutError', async () => {
  const fake = await fakeDaemon({
    slow: (_params, token) => untilCancelled(token),
    hang: () => never(),
    // Finishes in 300 ms whatever happens.
    late: () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 300)),
    // Answers the cancel with its result rather than REQUEST_CANCELLED.
    stubborn: (_params, token) => new Promise((resolve) => token.onCancellationRequested(() => resolve({ finished: true }))),
  });
  const client = await HostdClient.connect(fake.socketPath, { requestTimeoutMs: 100 });
  try {
    const started = Date.now();
    await assert.rejects(client.request('slow', {}), (err: unknown) => {
      assert.ok(err instanceof HostdTimeoutError, String(err));
      assert.equal(err.method, 'slow');
      assert.equal(err.timeoutMs, 100);
      assert.equal(err.cancelled, true);
      assert.match(err.message, /^slow took longer than 100 ms and was cancelled; raise the timeout/);
      return true;
    });
    assert.ok(Date.now() - started >= 100);
    assert.deepEqual(fake.cancelled, ['slow']);

    // A daemon that answers neither the call nor its cancel: given up after the grace.
    await assert.rejects(client.request('hang', {}), (err: unknown) => {
      assert.ok(err instanceof HostdTimeoutError, String(err));
      assert.equal(err.cancelled, false);
      assert.match(err.message, /^hang got no answer within 100 ms, nor to its \$\/cancelRequest; whether it ran is unknown/);
      return true;
    });
    assert.deepEqual(fake.cancelled, ['slow', 'hang']);

    // A result that comes in answer to the cancel is kept: the call finished.
    assert.deepEqual(await client.request('stubborn', {}), { finished: true });
    // A call's own timeout overrides the client's; 0 is none.
    assert.deepEqual(await client.request('late', {}, { timeoutMs: 0 }), { done: true });
    assert.deepEqual(await client.request('late', {}, { timeoutMs: 5000 }), { done: true });
    await assert.rejects(client.request('slow', {}, { timeoutMs: 50 }), (err: unknown) => err instanceof HostdTimeoutError && err.timeoutMs === 50);
    // The connection is still usable.
    assert.equal((await client.info()).version, 'fake');
  } finally {
    await client.close();
    fake.close();
  }
});

test('the trace hook sees every message, both ways, in order, from the first host.info', async () => {
  const events: TraceEvent[] = [];
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs(), trace: (e) => events.push(e) });
  try {
    const first = events.slice(0, 2);
    assert.equal(first[0]?.direction, 'send');
    assert.equal(first[0]?.message.method, 'host.info');
    assert.equal(first[1]?.direction, 'receive');
    assert.equal(first[1]?.message.id, first[0]?.message.id);
    assert.equal((first[1]?.message.result as { name: string }).name, 'hostd');

    await client.createSession({ workspace: tempDir('ws-'), sessionId: 's-trace' });
    await client.execute('s-trace', 'write', { path: 'a.txt', content: 'a\n' }, { toolCallId: 'w-trace' });
    const methods = events.map((e) => `${e.direction} ${e.message.method ?? (e.message.error ? 'error' : 'result')}`);
    assert.deepEqual(methods.slice(2), ['send session.create', 'receive result', 'send tools.execute', 'receive review.recorded', 'receive result']);
  } finally {
    await client.close();
  }
});

test('onNotification gets every notification, the ones this client has no types for too', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const seen: Array<[string, unknown]> = [];
    const typed: ReviewRecordedParams[] = [];
    client.onNotification((method, params) => seen.push([method, params]));
    client.onReviewRecorded((p) => typed.push(p));
    await client.createSession({ workspace: tempDir('ws-'), sessionId: 's-note' });
    await client.execute('s-note', 'write', { path: 'a.txt', content: 'a\n' }, { toolCallId: 'w-note' });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.[0], 'review.recorded');
    assert.deepEqual(seen[0]?.[1], typed[0]);
  } finally {
    await client.close();
  }

  const fake = await fakeDaemon({
    poke: (_params, _token, conn) => {
      void conn.sendNotification('x/future', { n: 1 });
      return {};
    },
  });
  const c = await HostdClient.connect(fake.socketPath);
  try {
    const got = new Promise<[string, unknown]>((resolve) => c.onNotification((m, p) => resolve([m, p])));
    await c.request('poke', {});
    assert.deepEqual(await got, ['x/future', { n: 1 }]);
    assert.equal((await c.info()).version, 'fake');
  } finally {
    await c.close();
    fake.close();
  }
});

test('stderr "pipe" hands hostd\'s stderr to onStderr; "inherit" writes it to this process\'s stderr', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: [...standaloneArgs(), '--rpc-trace'] });
  let stderr = '';
  client.onStderr((text) => (stderr += text));
  try {
    await client.listSessions();
    while (!stderr.includes('"method\\":\\"session.list\\"')) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.match(stderr, /"msg":"rpc in"/);
  } finally {
    await client.close();
  }

  // "inherit" is seen from outside: a child process runs the client, and
  // its own stderr gets hostd's.
  const script = `
    const { HostdClient } = require(${JSON.stringify(path.join(packageRoot, 'dist', 'index.js'))});
    (async () => {
      const c = await HostdClient.spawn({ bin: process.argv[1], args: ['--state-dir', process.argv[2]], stderr: 'inherit' });
      let piped = 0;
      c.onStderr(() => piped++);
      await c.listSessions();
      await c.close();
      process.stdout.write(JSON.stringify({ piped }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = spawnSync(process.execPath, ['-e', script, hostdBinary(), tempDir('hostd-state-')], { encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { piped: 0 });
  assert.match(run.stderr, /hostd \S+ serving JSON-RPC on stdin\/stdout \(pid \d+\)/);
});
