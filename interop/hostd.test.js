// Drives a real hostd with vscode-jsonrpc, the JSON-RPC library the
// TypeScript agent runtime uses: once spawned with --stdio, as the desktop
// app runs it, and once over its Unix socket. HOSTD_BIN names the binary;
// without it the test builds one with the Go toolchain.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostd-interop-'));

function hostdBinary() {
  if (process.env.HOSTD_BIN) {
    return process.env.HOSTD_BIN;
  }
  const bin = path.join(scratch, 'hostd');
  execFileSync('go', ['build', '-o', bin, './cmd/hostd'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
  return bin;
}

let bin;
before(() => {
  bin = hostdBinary();
});
after(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

// spawnHostd starts hostd and collects its stderr.
function spawnHostd(args) {
  const child = spawn(bin, [...args, '--state-dir', fs.mkdtempSync(path.join(scratch, 'state-'))], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderrText = '';
  child.stderr.on('data', (b) => { child.stderrText += b.toString(); });
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return child;
}

function waitForStderr(child, text, ms = 30000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hostd did not say "${text}":\n${child.stderrText}`)), ms);
    const check = () => {
      if (child.stderrText.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr.on('data', check);
    check();
  });
}

// exercise runs the calls every client makes: identity, discovery, a
// session's life, and the error for a method that does not exist.
async function exercise(conn) {
  const info = await conn.sendRequest('host.info');
  assert.equal(info.name, 'hostd');
  assert.equal(info.protocolVersion, 1);
  assert.ok(Array.isArray(info.grammars));
  assert.equal(typeof info.limits.maxFrameBytes, 'number');

  const doc = await conn.sendRequest('rpc.discover');
  assert.match(doc.openrpc, /^1\./);
  const names = doc.methods.map((m) => m.name);
  for (const m of ['host.info', 'session.create', 'session.delete', 'session.list', 'tools.execute', 'debug.stats']) {
    assert.ok(names.includes(m), `rpc.discover lacks ${m}`);
  }

  const workspace = fs.mkdtempSync(path.join(scratch, 'ws-'));
  const created = await conn.sendRequest('session.create', { workspace, sessionId: 'interop-1' });
  assert.equal(created.sessionId, 'interop-1');
  assert.equal(created.workspace, fs.realpathSync(workspace));
  let list = await conn.sendRequest('session.list');
  assert.deepEqual(list.sessions.map((s) => s.sessionId), ['interop-1']);
  assert.deepEqual(await conn.sendRequest('session.delete', { sessionId: 'interop-1' }), {});
  list = await conn.sendRequest('session.list');
  assert.deepEqual(list.sessions, []);

  await assert.rejects(conn.sendRequest('session.delete', { sessionId: 'interop-1' }), (err) => {
    assert.ok(err instanceof rpc.ResponseError);
    assert.equal(err.code, -32001);
    assert.equal(err.data.code, 'SESSION_NOT_FOUND');
    return true;
  });
  await assert.rejects(conn.sendRequest('no.such.method', {}), (err) => {
    assert.ok(err instanceof rpc.ResponseError);
    assert.equal(err.code, -32601);
    assert.equal(err.data.code, 'METHOD_NOT_FOUND');
    return true;
  });
}

test('hostd --stdio speaks to vscode-jsonrpc', async () => {
  const child = spawnHostd(['--stdio']);
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  conn.listen();
  try {
    await exercise(conn);
  } finally {
    conn.dispose();
    child.stdin.end();
  }
  const { code } = await child.exited;
  assert.equal(code, 0, child.stderrText);
});

test('hostd over its Unix socket speaks to vscode-jsonrpc', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hd-'));
  fs.chmodSync(dir, 0o700);
  const socketPath = path.join(dir, 'hostd.sock');
  const child = spawnHostd(['--socket', socketPath]);
  try {
    await waitForStderr(child, `listening on ${socketPath}`);
    const socket = net.connect(socketPath);
    await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
    const conn = rpc.createMessageConnection(new rpc.SocketMessageReader(socket), new rpc.SocketMessageWriter(socket));
    conn.listen();
    await exercise(conn);
    assert.deepEqual(await conn.sendRequest('host.shutdown'), {});
    conn.dispose();
    socket.destroy();
    const { code } = await child.exited;
    assert.equal(code, 0, child.stderrText);
    assert.equal(fs.existsSync(socketPath), false, 'the socket file must be removed on shutdown');
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
