// The client against a real hostd (HOSTD_BIN, or one built from this
// checkout): spawned with --stdio as the desktop app runs it, and over its
// Unix socket. These carry the coverage of interop/hostd.test.js, the raw
// vscode-jsonrpc test, through the client.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { HostdClient, HostdConnectionError, HostdError, methodNames, type ReviewRecordedParams } from '../src/index';
import { fakeDaemon, untilCancelled } from './fake';
import { hostdBinary, repoRoot, socketDaemon, standaloneArgs, tempDir } from './hostd';

// exercise runs the calls every client makes: identity, discovery, a
// session's life, and the errors of an unknown session and method.
async function exercise(client: HostdClient): Promise<void> {
  const info = await client.info();
  assert.equal(info.name, 'hostd');
  assert.equal(info.protocolVersion, 1);
  assert.ok(Array.isArray(info.grammars));
  assert.equal(typeof info.limits['maxFrameBytes'], 'number');

  const doc = await client.call('rpc.discover');
  assert.match(doc.openrpc, /^1\./);
  assert.deepEqual(
    doc.methods.map((m) => m.name),
    [...methodNames],
  );

  const workspace = tempDir('ws-');
  const created = await client.createSession({ workspace, sessionId: 'client-1' });
  assert.deepEqual(created, { sessionId: 'client-1', workspace, editResult: 'compact' });
  let list = await client.listSessions();
  assert.deepEqual(
    list.sessions.map((s) => s.sessionId),
    ['client-1'],
  );
  assert.deepEqual(await client.deleteSession('client-1'), {});
  list = await client.listSessions();
  assert.deepEqual(list.sessions, []);

  await assert.rejects(client.deleteSession('client-1'), (err: unknown) => {
    assert.ok(err instanceof HostdError);
    assert.equal(err.code, -32001);
    assert.equal(err.codeName, 'SESSION_NOT_FOUND');
    assert.equal(err.method, 'session.delete');
    assert.match(err.message, /session not found: "client-1"/);
    return true;
  });
  await assert.rejects(client.request('no.such.method', {}), (err: unknown) => {
    assert.ok(err instanceof HostdError);
    assert.equal(err.code, -32601);
    assert.equal(err.codeName, 'METHOD_NOT_FOUND');
    return true;
  });
  await assert.rejects(client.request('session.create', { workspace, bogus: 1 }), (err: unknown) => {
    assert.ok(err instanceof HostdError);
    assert.equal(err.codeName, 'INVALID_PARAMS');
    assert.equal(err.field, 'params.bogus');
    return true;
  });
}

test('spawned hostd --stdio: identity, discovery, sessions and errors', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
  assert.equal(client.closed, true);
  await assert.rejects(client.info(), HostdConnectionError);
});

test('hostd over its Unix socket: the same, then host.shutdown ends the connection', async () => {
  const daemon = await socketDaemon();
  const client = await HostdClient.connect(daemon.socketPath);
  try {
    const ended = new Promise<void>((resolve) => client.onClose(resolve));
    await exercise(client);
    assert.deepEqual(await client.call('host.shutdown'), {});
    await ended;
    const { code } = await daemon.exited;
    assert.equal(code, 0, daemon.stderr());
    assert.equal(fs.existsSync(daemon.socketPath), false, 'the socket file must be removed on shutdown');
    await assert.rejects(client.info(), (err: unknown) => {
      assert.ok(err instanceof HostdConnectionError);
      assert.match(err.message, /hostd closed the connection on .*reconnect/);
      return true;
    });
  } finally {
    await client.close();
    daemon.child.kill('SIGKILL');
  }
});

test('rpc.discover of the hostd under test is docs/openrpc.json, the types\' source', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const served = await client.call('rpc.discover');
    const file = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs', 'openrpc.json'), 'utf8'));
    assert.deepEqual(served, file, 'regenerate docs/openrpc.json (go test ./rpc -run TestOpenRPCFileIsCurrent -update), then npm run generate');
  } finally {
    await client.close();
  }
});

test('review.recorded arrives as a typed event, on every handler, until disposed', async () => {
  const daemon = await socketDaemon();
  const writer = await HostdClient.connect(daemon.socketPath);
  const watcher = await HostdClient.connect(daemon.socketPath);
  try {
    const workspace = tempDir('ws-');
    await writer.createSession({ workspace, sessionId: 's-rec' });

    const seen: ReviewRecordedParams[] = [];
    const got = new Promise<ReviewRecordedParams>((resolve) => watcher.onReviewRecorded(resolve));
    // A handler that throws must not keep the event from the others.
    const thrower = watcher.onReviewRecorded(() => {
      throw new Error('a broken handler');
    });
    const counted = watcher.onReviewRecorded((p) => seen.push(p));
    const quiet = console.error;
    console.error = () => {};
    let params: ReviewRecordedParams;
    try {
      const result = await writer.execute('s-rec', 'write', { path: 'a.txt', content: 'one\n' }, { toolCallId: 'w-1' });
      assert.equal(result.ok, true, result.content);
      params = await got;
    } finally {
      console.error = quiet;
      thrower.dispose();
    }
    assert.equal(params.sessionId, 's-rec');
    assert.equal(params.toolCallId, 'w-1');
    assert.equal(params.entries.length, 1);
    assert.equal(params.entries[0]?.path, 'a.txt');
    assert.equal(params.entries[0]?.change, 'create');
    assert.equal(seen.length, 1);

    counted.dispose();
    const second = new Promise<ReviewRecordedParams>((resolve) => watcher.onReviewRecorded(resolve));
    await writer.execute('s-rec', 'write', { path: 'b.txt', content: 'two\n' }, { toolCallId: 'w-2' });
    assert.equal((await second).toolCallId, 'w-2');
    assert.equal(seen.length, 1, 'a disposed handler is not called');
  } finally {
    await writer.close();
    await watcher.close();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
});

test('many calls in flight on one connection each get their own answer', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const workspace = tempDir('ws-');
    const n = 40;
    for (let i = 0; i < n; i++) {
      fs.writeFileSync(path.join(workspace, `f${i}.txt`), `file ${i}\n`);
    }
    await client.createSession({ workspace, sessionId: 's-many' });
    const results = await Promise.all(Array.from({ length: n }, (_, i) => client.execute('s-many', 'read', { path: `f${i}.txt` })));
    results.forEach((r, i) => {
      assert.equal(r.ok, true, r.content);
      assert.equal(r.path, `f${i}.txt`);
      assert.match(r.content, new RegExp(`^\\[f${i}\\.txt#[0-9A-F]{4}\\]\\n1:file ${i}$`));
    });
  } finally {
    await client.close();
  }
});

test('text that is not ASCII, CRLF and a BOM cross the framing byte for byte', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const workspace = tempDir('ws-');
    await client.createSession({ workspace, sessionId: 's-text' });
    // Content-Length counts bytes; a client that counted UTF-16 units would
    // cut these frames short.
    const content = '\uFEFFhéllo wörld 🌍\r\nzweite Zeile — ✓\r\n';
    const w = await client.execute('s-text', 'write', { path: 'u.txt', content });
    assert.equal(w.ok, true, w.content);
    assert.deepEqual(fs.readFileSync(path.join(workspace, 'u.txt')), Buffer.from(content, 'utf8'));
    const r = await client.execute('s-text', 'read', { path: 'u.txt' });
    assert.equal(r.ok, true, r.content);
    assert.match(r.content, /\n1:héllo wörld 🌍\n2:zweite Zeile — ✓$/);
  } finally {
    await client.close();
  }
});

// A stand-in for a hostd that crashes: it reads the first frame's first
// line, says why on stderr and exits.
const crashing = ['-c', 'read line; echo "hostd: out of luck" >&2; exit 3', '--stdio'];

test('a spawned hostd that dies at once fails spawn with its exit status and stderr', async () => {
  await assert.rejects(HostdClient.spawn({ bin: 'sh', args: crashing }), (err: unknown) => {
    assert.ok(err instanceof HostdConnectionError, String(err));
    assert.equal(err.method, 'host.info');
    assert.match(err.message, /^host\.info got no answer: sh exited with status 3; start a new client \(its stderr ends: hostd: out of luck\)$/);
    return true;
  });
});

test('a spawned hostd that dies fails the call in flight with its exit status and stderr', async () => {
  const client = await HostdClient.spawn({ bin: 'sh', args: crashing, checkProtocol: false });
  const ended = new Promise<void>((resolve) => client.onClose(resolve));
  await assert.rejects(client.info(), (err: unknown) => {
    assert.ok(err instanceof HostdConnectionError, String(err));
    assert.equal(err.method, 'host.info');
    assert.match(err.message, /sh exited with status 3; start a new client \(its stderr ends: hostd: out of luck\)/);
    return true;
  });
  await ended;
  assert.equal(client.closed, true);
  await assert.rejects(client.listSessions(), /session\.list not sent: sh exited with status 3/);
  await client.close();
});

test('spawn and connect say what to do when there is no hostd', async () => {
  await assert.rejects(HostdClient.spawn({ bin: path.join(tempDir(), 'no-hostd') }), /cannot start .*no-hostd: .*pass spawn\(\{bin\}\) or set HOSTD_BIN to the path of a hostd binary/);
  await assert.rejects(HostdClient.connect(path.join(tempDir(), 'none.sock')), /cannot connect to .*none\.sock: .*no hostd listens there/);
});

test('aborting a call sends $/cancelRequest and settles with the daemon\'s REQUEST_CANCELLED', async () => {
  // hostd has no method that reliably outlasts a test's cancel: a stand-in
  // answers "slow" only when it is cancelled, as hostd does.
  const fake = await fakeDaemon({ slow: (_params, token) => untilCancelled(token) });
  const client = await HostdClient.connect(fake.socketPath);
  try {
    const abort = new AbortController();
    const call = client.request('slow', {}, { signal: abort.signal });
    while (!fake.requests.includes('slow')) {
      await new Promise((r) => setTimeout(r, 5));
    }
    abort.abort();
    await assert.rejects(call, (err: unknown) => {
      assert.ok(err instanceof HostdError, String(err));
      assert.equal(err.code, -32800);
      assert.equal(err.codeName, 'REQUEST_CANCELLED');
      return true;
    });
    assert.deepEqual(fake.cancelled, ['slow']);

    // A signal aborted before the call: nothing is sent.
    const early = new AbortController();
    early.abort(new Error('gave up early'));
    await assert.rejects(client.request('slow', {}, { signal: early.signal }), /gave up early/);
    assert.deepEqual(fake.requests, ['host.info', 'slow']);
  } finally {
    await client.close();
    fake.close();
  }
});

test('aborting a real hostd call that already finished gives its result', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const abort = new AbortController();
    const info = await client.info({ signal: abort.signal });
    abort.abort();
    assert.equal(info.name, 'hostd');
    // The connection is still usable: the late cancel named no running call.
    assert.equal((await client.listSessions()).sessions.length, 0);
  } finally {
    await client.close();
  }
});
