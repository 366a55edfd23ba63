// Drives `hostd mcp` with the official TypeScript MCP SDK's client, a
// client no one in this project wrote: it lists the tools and runs
// read -> edit -> read, with --workspace and with the client's roots over
// stdio, and over streamable HTTP with the token in the Authorization
// header. By default a result is its text alone; with --structured-results
// the SDK validates each result's structuredContent against the tool's
// outputSchema. The MCP server runs its tools in a hostd daemon listening on a
// socket, which the test also talks to with vscode-jsonrpc to see the MCP
// session and its review record there. HOSTD_BIN names the binary;
// without it the test builds one. MCP_TRANSCRIPT=1 prints the exchange.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-jsonrpc/node');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ListRootsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// A short directory: a Unix socket path has at most 107 bytes.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hd-mcp-'));
fs.chmodSync(scratch, 0o700);
const socketPath = path.join(scratch, 'hostd.sock');

function log(...args) {
  if (process.env.MCP_TRANSCRIPT) {
    console.log(...args);
  }
}

let bin;
let daemon;
let conn;
before(async () => {
  bin = process.env.HOSTD_BIN;
  if (!bin) {
    bin = path.join(scratch, 'hostd');
    execFileSync('go', ['build', '-o', bin, './cmd/hostd'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
  }
  daemon = spawn(bin, ['--socket', socketPath, '--state-dir', path.join(scratch, 'state')], { stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderrText = '';
  daemon.exited = new Promise((resolve) => daemon.on('exit', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hostd did not listen:\n${daemon.stderrText}`)), 60000);
    daemon.stderr.on('data', (b) => {
      daemon.stderrText += b.toString();
      if (daemon.stderrText.includes(`listening on ${socketPath}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const socket = net.connect(socketPath);
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  conn = rpc.createMessageConnection(new rpc.SocketMessageReader(socket), new rpc.SocketMessageWriter(socket));
  conn.listen();
});
after(async () => {
  if (conn) {
    await conn.sendRequest('host.shutdown');
    conn.dispose();
    assert.equal(await daemon.exited, 0, daemon.stderrText);
  }
  fs.rmSync(scratch, { recursive: true, force: true });
});

// connect starts `hostd mcp` with args and connects the SDK client to it.
async function connect(args, options = {}) {
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--socket', socketPath, ...args], stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (b) => { stderr += b.toString(); });
  const client = new Client({ name: 'interop', version: '1.0.0' }, options);
  if (options.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: options.roots }));
  }
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

function workspace() {
  const dir = fs.mkdtempSync(path.join(scratch, 'ws-'));
  fs.writeFileSync(path.join(dir, 'main.go'), 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n');
  return dir;
}

async function call(client, name, args) {
  log(`> tools/call ${name} ${JSON.stringify(args)}`);
  const res = await client.callTool({ name, arguments: args });
  log(`< isError=${res.isError === true}\n${res.content.map((c) => c.text).join('\n')}\n`);
  return res;
}

// readEditRead is the exchange every agent makes: read, edit line 6 by
// number with the tag the read showed, read the result. The tools are
// listed first, so with structured results (hostd mcp
// --structured-results) the SDK checks every result against its
// outputSchema; without, a result is its text block and _meta names the
// session and the call.
async function readEditRead(client, dir, structured) {
  const { tools } = await client.listTools();
  for (const t of tools) {
    assert.equal(t.title, t.annotations.title);
    assert.equal(structured ? t.outputSchema.type : t.outputSchema, structured ? 'object' : undefined);
  }
  const first = await call(client, 'read', { path: 'main.go' });
  assert.ok(!first.isError);
  assert.equal(first.content.length, 1);
  const tag = /^\[main\.go#([0-9A-F]{4})\]/.exec(first.content[0].text)[1];
  if (structured) {
    // A host reads the tag without parsing text; the model's text is there too.
    assert.equal(first.structuredContent.tag, tag);
    assert.equal(first.structuredContent.content, first.content[0].text);
  } else {
    assert.equal(first.structuredContent, undefined);
  }
  assert.match(first.content[0].text, /\n6:\tfmt\.Println\("hi"\)\n/);

  const stale = await call(client, 'edit', { path: 'main.go', tag: tag === '0000' ? '0001' : '0000', ops: 'PUT 6.=6:\n+x' });
  assert.equal(stale.isError, true);
  assert.match(stale.content[0].text, /^Error EDIT_TAG_(UNKNOWN|MISMATCH): /);
  if (structured) {
    assert.equal(stale.structuredContent.ok, false);
    assert.match(stale.structuredContent.error.code, /^EDIT_TAG_(UNKNOWN|MISMATCH)$/);
  }

  const edit = await call(client, 'edit', { path: 'main.go', tag, ops: 'PUT 6.=6:\n+\tfmt.Println("hello")' });
  assert.ok(!edit.isError, edit.content[0].text);
  // The compact result, the default: a change in place is its new tag alone.
  assert.match(edit.content[0].text, /^#[0-9A-F]{4}$/);
  const toolCallId = edit._meta['dev.hostd/toolCallId'];
  assert.match(toolCallId, /^tc-/);
  if (structured) {
    assert.equal(edit.content[0].text, `#${edit.structuredContent.tag}`);
    const meta = edit._meta['dev.hostd/result'];
    assert.equal(meta.ok, true);
    assert.equal(meta.toolCallId, toolCallId);
    assert.match(meta.diff, /\+\tfmt\.Println\("hello"\)/);
  } else {
    assert.equal(edit.structuredContent, undefined);
    assert.equal(edit._meta['dev.hostd/result'], undefined);
  }

  const second = await call(client, 'read', { path: 'main.go', offset: 6, limit: 1 });
  assert.match(second.content[0].text, /^\[main\.go#[0-9A-F]{4}\]\n6:\tfmt\.Println\("hello"\)/);
  assert.equal(fs.readFileSync(path.join(dir, 'main.go'), 'utf8'), 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n');
  return { sessionId: edit._meta['dev.hostd/sessionId'], toolCallId };
}

test('the TypeScript MCP client lists the tools with the daemon\'s descriptions', async () => {
  const dir = workspace();
  const { client } = await connect(['--workspace', dir]);
  try {
    const { tools } = await client.listTools();
    log(`> tools/list\n< ${tools.map((t) => `${t.name}: ${t.description.split('\n')[0].slice(0, 60)}…`).join('\n< ')}\n`);
    const defs = await conn.sendRequest('tools.definitions');
    assert.deepEqual(tools.map((t) => t.name), ['diagnostics', 'edit', 'grep', 'read', 'write']);
    for (const [i, t] of tools.entries()) {
      assert.equal(t.description, defs.tools[i].description);
      assert.deepEqual(t.inputSchema, defs.tools[i].inputSchema);
    }
  } finally {
    await client.close();
  }
});

test('read -> edit -> read over MCP with --workspace; the session and its change are seen over JSON-RPC', async () => {
  const dir = workspace();
  const { client, stderr } = await connect(['--workspace', dir]);
  let ids;
  try {
    ids = await readEditRead(client, dir, false);
    const { sessions } = await conn.sendRequest('session.list');
    const live = sessions.find((s) => s.sessionId === ids.sessionId);
    assert.ok(live, `session.list lacks ${ids.sessionId}: ${JSON.stringify(sessions)}`);
    assert.match(ids.sessionId, /^mcp-interop-/);
    assert.equal(live.workspace, fs.realpathSync(dir));
  } finally {
    await client.close();
  }
  assert.match(stderr(), /serving MCP on stdin\/stdout/);
  const { entries } = await conn.sendRequest('review.list', { sessionId: ids.sessionId });
  assert.deepEqual(entries.map((e) => [e.toolCallId, e.tool, e.path, e.change]), [[ids.toolCallId, 'edit', 'main.go', 'modify']]);
  const { restored } = await conn.sendRequest('review.rollback', { sessionId: ids.sessionId, toolCallId: ids.toolCallId });
  assert.deepEqual(restored, ['main.go']);
  assert.match(fs.readFileSync(path.join(dir, 'main.go'), 'utf8'), /Println\("hi"\)/);
});

test('read -> edit -> read over MCP on the client\'s roots, with structured results', async () => {
  const dir = workspace();
  const { client } = await connect(['--structured-results'], { capabilities: { roots: {} }, roots: [{ uri: pathToFileURL(dir).href, name: 'ws' }] });
  try {
    const { sessionId } = await readEditRead(client, dir, true);
    const { sessions } = await conn.sendRequest('session.list');
    assert.equal(sessions.find((s) => s.sessionId === sessionId).workspace, fs.realpathSync(dir));
  } finally {
    await client.close();
  }
});

// startHTTP starts `hostd mcp --http 127.0.0.1:0` on dir and resolves to
// its URL and the token it wrote (the file its stderr names).
async function startHTTP(dir) {
  const proc = spawn(bin, ['mcp', '--socket', socketPath, '--workspace', dir, '--http', '127.0.0.1:0'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, XDG_STATE_HOME: path.join(scratch, 'state-home') } });
  let stderr = '';
  const started = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hostd mcp --http did not start:\n${stderr}`)), 60000);
    proc.stderr.on('data', (b) => {
      stderr += b.toString();
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp) /.exec(stderr);
      const file = /the token \(new at every start\) is in (\S+)\n/.exec(stderr);
      if (url && file) {
        clearTimeout(timer);
        resolve({ url: url[1], tokenFile: file[1] });
      }
    });
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return { ...started, token: fs.readFileSync(started.tokenFile, 'utf8'), proc, exited, stderr: () => stderr };
}

test('read -> edit -> read over streamable HTTP with the token in the Authorization header', async () => {
  const dir = workspace();
  const server = await startHTTP(dir);
  try {
    assert.equal(fs.statSync(server.tokenFile).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(server.tokenFile)).mode & 0o777, 0o700);

    // Without the token: 401, and the SDK client cannot connect.
    const bare = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(bare.status, 401);
    assert.match(await bare.text(), /Authorization: Bearer TOKEN/);
    const refused = new Client({ name: 'no-token', version: '1.0.0' });
    await assert.rejects(refused.connect(new StreamableHTTPClientTransport(new URL(server.url))));

    const client = new Client({ name: 'interop-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
    }));
    try {
      const { sessionId } = await readEditRead(client, dir, false);
      assert.match(sessionId, /^mcp-interop-http-/);
      assert.match(client.getInstructions(), /\[PATH#TAG\]/);
    } finally {
      await client.close();
    }
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
  assert.ok(!fs.existsSync(server.tokenFile), 'the token file outlived the server');
});
