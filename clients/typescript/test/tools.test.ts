// toolSchemas and runTool against a real hostd.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { HostdClient, HostdError, toolNames, toolSchemas, type ToolsDefinitionsResult } from '../src/index';
import { hostdBinary, standaloneArgs, tempDir } from './hostd';

let client: HostdClient;
let workspace: string;
let definitions: ToolsDefinitionsResult;

before(async () => {
  client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  workspace = tempDir('ws-');
  await client.createSession({ workspace, sessionId: 's-tools' });
  definitions = await client.toolDefinitions();
});

after(async () => {
  await client.close();
});

test('toolSchemas gives the Anthropic and OpenAI shapes of tools.definitions, as hostd wrote them', () => {
  assert.deepEqual(
    definitions.tools.map((t) => t.name).sort(),
    [...toolNames].sort(),
  );
  const anthropic = toolSchemas(definitions);
  assert.deepEqual(anthropic, toolSchemas(definitions.tools, 'anthropic'));
  const openai = toolSchemas(definitions, 'openai');
  assert.equal(anthropic.length, definitions.tools.length);
  definitions.tools.forEach((def, i) => {
    assert.deepEqual(anthropic[i], { name: def.name, description: def.description, input_schema: def.inputSchema });
    assert.deepEqual(openai[i], { type: 'function', function: { name: def.name, description: def.description, parameters: def.inputSchema } });
  });
  const edit = anthropic.find((t) => t.name === 'edit');
  assert.ok(edit);
  assert.deepEqual((edit.input_schema as { required: string[] }).required, ['path', 'ops']);
  assert.throws(() => toolSchemas(definitions, 'gemini' as 'openai'), /unknown format "gemini"/);
});

test('runTool: a successful call hands the model the result content, filed under the call id', async () => {
  const run = await client.runTool('s-tools', { name: 'write', input: { path: 'main.txt', content: 'alpha\nbeta\n' }, id: 'toolu_01' });
  assert.equal(run.isError, false);
  assert.equal(run.terminate, false);
  assert.ok(run.result);
  assert.equal(run.text, run.result.content);
  assert.match(run.text, /^\[main\.txt#[0-9A-F]{4}\]\ncreated, 2 lines$/);
  assert.equal(run.result.toolCallId, 'toolu_01');
  const list = await client.reviewList('s-tools', 'main.txt');
  assert.deepEqual(
    list.entries.map((e) => e.toolCallId),
    ['toolu_01'],
  );
});

test('runTool: an edit names the file as its header does and gets the compact result by default', async () => {
  const written = await client.runTool('s-tools', { name: 'write', input: { path: 'header.txt', content: 'one\ntwo\nthree\n' } });
  const header = /^\[(header\.txt#[0-9A-F]{4})\]/.exec(written.text);
  assert.ok(header, written.text);
  const edit = await client.runTool('s-tools', { name: 'edit', input: { path: header[1], ops: 'PUT 2:\n+TWO' } });
  assert.equal(edit.isError, false, edit.text);
  assert.match(edit.text, /^#[0-9A-F]{4}$/);
  assert.equal(fs.readFileSync(path.join(workspace, 'header.txt'), 'utf8'), 'one\nTWO\nthree\n');
});

test('runTool: editResult asks for the full result unless the model chose a form', async () => {
  const written = await client.runTool('s-tools', { name: 'write', input: { path: 'full.txt', content: 'one\ntwo\nthree\n' } });
  const tag = /^\[full\.txt#([0-9A-F]{4})\]/.exec(written.text);
  assert.ok(tag, written.text);
  const full = await client.runTool('s-tools', { name: 'edit', input: { path: `full.txt#${tag[1]}`, ops: 'PUT 2:\n+TWO' } }, { editResult: 'full' });
  assert.equal(full.isError, false, full.text);
  assert.match(full.text, /^\[full\.txt#[0-9A-F]{4}\]\n2:TWO$/);
  const next = /#([0-9A-F]{4})/.exec(full.text);
  assert.ok(next);
  const own = await client.runTool('s-tools', { name: 'edit', input: { path: `full.txt#${next[1]}`, ops: 'PUT 3:\n+THREE', result: 'compact' } }, { editResult: 'full' });
  assert.match(own.text, /^#[0-9A-F]{4}$/);
  // A read is left as it is: only an edit takes a result form.
  const read = await client.runTool('s-tools', { name: 'read', input: { path: 'full.txt' } }, { editResult: 'full' });
  assert.equal(read.isError, false, read.text);
});

test('runTool: a failed tool is text the model reads, in the wire contract\'s "Error CODE: message" form', async () => {
  const run = await client.runTool('s-tools', { name: 'read', input: { path: 'missing.txt' }, id: 'toolu_02' });
  assert.equal(run.isError, true);
  assert.equal(run.terminate, false);
  assert.ok(run.result);
  assert.equal(run.result.ok, false);
  assert.equal(run.result.error?.code, 'NOT_FOUND');
  assert.equal(run.text, run.result.content);
  assert.ok(run.text.startsWith(`Error NOT_FOUND: ${run.result.error?.message}`), run.text);

  // Input that does not fit the tool's schema is the model's to fix too.
  const bad = await client.runTool('s-tools', { name: 'read', input: { pth: 'x' } });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /^Error INVALID_ARGUMENT: /);
});

test('runTool: a tool name hostd does not serve is told to the model with the tools it has', async () => {
  const run = await client.runTool('s-tools', { name: 'bash', input: { command: 'ls' } });
  assert.equal(run.isError, true);
  assert.equal(run.result, undefined);
  assert.match(run.text, /^Error UNKNOWN_TOOL: unknown tool: "bash" \(tools: \[diagnostics edit grep read write\]\)/);
});

test('runTool: what the runtime must fix (an unknown session) rejects with HostdError', async () => {
  await assert.rejects(client.runTool('s-none', { name: 'read', input: { path: 'main.txt' } }), (err: unknown) => {
    assert.ok(err instanceof HostdError);
    assert.equal(err.codeName, 'SESSION_NOT_FOUND');
    return true;
  });
});

test('runTool: the repeat guard\'s stop comes back as terminate', async () => {
  fs.writeFileSync(path.join(workspace, 'g.txt'), 'one\ntwo\n');
  const read = await client.execute('s-tools', 'read', { path: 'g.txt' });
  assert.equal(read.ok, true, read.content);
  let last;
  for (let i = 1; i <= 3; i++) {
    last = await client.runTool(
      's-tools',
      { name: 'edit', input: { path: 'g.txt', tag: read.tag, ops: 'NOT AN OP' }, id: `guard-${i}` },
      { promptId: 'turn-guard' },
    );
    assert.equal(last.isError, true);
    assert.equal(last.terminate, i === 3, `call ${i}: ${last.text}`);
  }
  assert.equal(last?.result?.terminate, true);
});

test('execute and runTool pass promptId and the call id through tools.execute', async () => {
  const r = await client.execute('s-tools', 'grep', { pattern: 'beta', outputMode: 'content' }, { toolCallId: 'grep-1', promptId: 'turn-2' });
  assert.equal(r.ok, true, r.content);
  assert.equal(r.toolCallId, 'grep-1');
  assert.deepEqual(r.matches, [{ path: 'main.txt', line: 2, text: 'beta' }]);
});
