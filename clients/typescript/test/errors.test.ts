// The error codes the types name: docs/openrpc.json's (which the daemon
// generates from its Go definitions) held to docs/wire-contract.md's
// tables, and the errors a real hostd answers held to the generated codes
// and to the details schemas, code by code.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as rpc from 'vscode-jsonrpc/node';

import { HostdClient, HostdError, toolErrors, wireErrors, type AnyToolResult, type ToolErrorCode } from '../src/index';
import { fakeDaemon } from './fake';
import { hostdBinary, packageRoot, repoRoot, standaloneArgs, tempDir } from './hostd';
import { problems, type Schemas } from './schema';

interface Document {
  components: { errors: Record<string, { code: number; 'x-retriable'?: boolean }>; schemas: Schemas };
  'x-tool-errors': Array<{ code: string; retriable: boolean; details?: unknown }>;
  'x-repeat-guard-details': { properties: Record<string, unknown>; required: string[] };
}

const load = async (): Promise<Document> => {
  const g = (await import(path.join(packageRoot, 'scripts', 'generate.mjs'))) as { readDocument(): Document };
  return g.readDocument();
};

const contract = fs.readFileSync(path.join(repoRoot, 'docs', 'wire-contract.md'), 'utf8');

// tableRows is the rows of the first table after heading, split into cells.
function tableRows(heading: string): string[][] {
  const start = contract.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/wire-contract.md has no heading ${JSON.stringify(heading)}`);
  const lines = contract.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) {
      break;
    }
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

// The name in a table cell, without a note such as "(hostd's addition)".
const codeName = (cell: string) => cell.replace(/\s*\(.*\)$/, '');

test('the JSON-RPC errors are wire-contract §2\'s table, and only OVERLOADED is retriable', async () => {
  const doc = await load();
  const documented = Object.fromEntries(tableRows('## 2. Errors').map((r) => [codeName(r[1]!), Number(r[0])]));
  const typed = Object.fromEntries(Object.entries(doc.components.errors).map(([name, e]) => [name, e.code]));
  assert.deepEqual(typed, documented);
  assert.deepEqual(Object.fromEntries(Object.entries(wireErrors).map(([name, e]) => [name, e.code])), documented);
  // §1 marks the retriable ones where it introduces them: "OVERLOADED (retriable)".
  const retriable = [...contract.matchAll(/\b([A-Z][A-Z_]+) \(retriable\)/g)].map((m) => m[1]);
  assert.deepEqual(
    Object.entries(wireErrors)
      .filter(([, e]) => e.retriable)
      .map(([name]) => name),
    [...new Set(retriable)],
  );
});

test('the tool errors are wire-contract §4\'s table, with its retriable column', async () => {
  const doc = await load();
  const documented = Object.fromEntries(tableRows('### Tool error codes').map((r) => [codeName(r[0]!), r[1]!.startsWith('yes')]));
  assert.ok(Object.keys(documented).length >= 20, JSON.stringify(documented));
  assert.deepEqual(Object.fromEntries(doc['x-tool-errors'].map((t) => [t.code, t.retriable])), documented);
  assert.deepEqual(Object.fromEntries(Object.entries(toolErrors).map(([code, t]) => [code, t.retriable])), documented);
  // Each details shape the table names has a schema, with the members it names.
  for (const row of tableRows('### Tool error codes')) {
    const named = /`details: \{([^`]*)\}`/.exec(row[2]!);
    const entry = doc['x-tool-errors'].find((t) => t.code === codeName(row[0]!));
    if (named === null) {
      continue;
    }
    // The top-level members: nested shapes ({line, text}) dropped first.
    let top = named[1]!;
    for (let prev = ''; prev !== top; ) {
      prev = top;
      top = top.replace(/\[[^[\]]*\]|\{[^{}]*\}/g, '');
    }
    const members = top.split(',').map((m) => m.split(':')[0]!.trim());
    const props = Object.keys((entry?.details as { properties?: object } | undefined)?.properties ?? {});
    for (const m of members) {
      assert.ok(props.includes(m!), `${row[0]}: details member ${m} has no schema (have ${props.join(', ')})`);
    }
  }
});

let client: HostdClient;
let workspace: string;
let doc: Document;

before(async () => {
  doc = await load();
  client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  workspace = tempDir('ws-');
  await client.createSession({ workspace, sessionId: 's-err' });
});

after(async () => {
  await client.close();
});

// holds checks a failed tool result against the generated codes and the
// details schema of its code (with what the repeat guard adds when it
// stopped the turn).
function holds(result: AnyToolResult, want: ToolErrorCode): void {
  assert.equal(result.ok, false, result.content);
  if (result.ok) {
    return;
  }
  const e = result.error;
  assert.equal(e.code, want, e.message);
  assert.equal(e.retriable, toolErrors[e.code].retriable, `${e.code}: retriable`);
  const own = doc['x-tool-errors'].find((t) => t.code === e.code)?.details as { properties?: object; required?: string[] } | undefined;
  const guard = doc['x-repeat-guard-details'];
  const schema = {
    type: 'object',
    properties: { ...own?.properties, ...(result.terminate ? guard.properties : {}) },
    required: [...(own?.required ?? []), ...(result.terminate ? guard.required : [])],
    additionalProperties: false,
  };
  if (own === undefined && !result.terminate) {
    assert.equal(e.details, undefined, `${e.code} carries no details: ${JSON.stringify(e.details)}`);
    return;
  }
  assert.deepEqual(problems(schema, e.details, doc.components.schemas), [], `${e.code} details ${JSON.stringify(e.details)}`);
}

test('a real hostd\'s tool errors have the generated codes, retriable flags and details shapes', async () => {
  const lines = (prefix: string) => Array.from({ length: 10 }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';
  holds(await client.execute('s-err', 'read', { path: 'missing.txt' }), 'NOT_FOUND');

  fs.writeFileSync(path.join(workspace, 'ten.txt'), lines('line'));
  const read = await client.execute('s-err', 'read', { path: 'ten.txt' });
  assert.ok(read.ok, read.content);
  const other = read.tag === 'ABCD' ? 'ABCE' : 'ABCD';
  holds(await client.execute('s-err', 'edit', { path: 'ten.txt', tag: other, ops: 'PUT 5.=5:\n+five' }), 'EDIT_TAG_UNKNOWN');
  fs.writeFileSync(path.join(workspace, 'ten.txt'), lines('line').replace('line 5\n', 'CHANGED\n'));
  const mismatch = await client.execute('s-err', 'edit', { path: 'ten.txt', tag: read.tag, ops: 'PUT 5.=5:\n+five' });
  holds(mismatch, 'EDIT_TAG_MISMATCH');
  if (!mismatch.ok && mismatch.error.code === 'EDIT_TAG_MISMATCH') {
    // Narrowed by code, the details are typed.
    assert.deepEqual(mismatch.error.details?.context?.[2], { line: 5, text: 'CHANGED' });
  }

  fs.writeFileSync(path.join(workspace, 'u.txt'), lines('u'));
  const part = await client.execute('s-err', 'read', { path: 'u.txt', limit: 2 });
  assert.ok(part.ok, part.content);
  const unseen = await client.execute('s-err', 'edit', { path: 'u.txt', tag: part.tag, ops: 'PUT 8.=8:\n+eight' });
  holds(unseen, 'EDIT_LINES_UNSEEN');
  if (!unseen.ok && unseen.error.code === 'EDIT_LINES_UNSEEN') {
    assert.equal(unseen.error.details?.merged, true);
    assert.deepEqual(unseen.error.details?.lines, [{ line: 8, text: 'u 8' }]);
  }
  holds(await client.execute('s-err', 'edit', { path: 'u.txt', tag: part.tag, ops: 'PUT 1*:\n+x' }), 'EDIT_BLOCK_UNRESOLVED');

  // The repeat guard's third counted failure adds recovery, attempts and kind.
  let last: AnyToolResult | undefined;
  for (let i = 0; i < 3; i++) {
    last = await client.executeAny('s-err', 'edit', { path: 'u.txt', tag: part.tag, ops: 'NOT AN OP' }, { promptId: 'turn-err' });
  }
  assert.ok(last && last.terminate === true, JSON.stringify(last));
  holds(last, 'EDIT_PARSE_FAILED');
  if (!last.ok) {
    assert.equal(last.error.details?.attempts, 3);
  }
});

test('a real hostd\'s JSON-RPC errors carry the generated names and codes', async () => {
  const cases: Array<[() => Promise<unknown>, string]> = [
    [() => client.deleteSession('s-none'), 'SESSION_NOT_FOUND'],
    [() => client.request('no.such.method', {}), 'METHOD_NOT_FOUND'],
    [() => client.request('session.create', { workspace, bogus: 1 }), 'INVALID_PARAMS'],
    [() => client.createSession({ workspace: path.join(workspace, 'missing') }), 'WORKSPACE_INVALID'],
    [() => client.rollback('s-err', 'call-none'), 'REVIEW_NOT_FOUND'],
    [() => client.rewind('s-err', { promptId: 'turn-none' }), 'REVIEW_NOT_FOUND'],
    [() => client.rewind('s-err', { promptId: 'turn-none', all: true }), 'INVALID_PARAMS'],
    [() => client.executeAny('s-err', 'bash', {}), 'UNKNOWN_TOOL'],
  ];
  for (const [call, name] of cases) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(err instanceof HostdError, String(err));
      assert.equal(err.codeName, name);
      assert.equal(err.code, wireErrors[err.codeName as keyof typeof wireErrors].code);
      assert.equal(err.retriable, false);
      return true;
    });
  }
});

test('rewind previews and undoes a whole turn of a real hostd', async () => {
  const file = path.join(workspace, 'rewound.txt');
  fs.writeFileSync(file, 'before\n');
  for (const [i, content] of ['one\n', 'two\n'].entries()) {
    const res = await client.execute('s-err', 'write', { path: 'rewound.txt', content }, { promptId: 'turn-rw', toolCallId: `rw-${i}` });
    assert.ok(res.ok, JSON.stringify(res));
  }
  const preview = await client.rewind('s-err', { promptId: 'turn-rw', dryRun: true });
  assert.equal(preview.dryRun, true);
  assert.deepEqual(preview.calls, ['rw-1', 'rw-0']);
  assert.equal(preview.files.length, 1);
  const [file0] = preview.files;
  assert.ok(file0);
  assert.equal(file0.action, 'restore');
  assert.match(file0.diff, /-two\n\+before/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'two\n');
  const done = await client.rewind('s-err', { promptId: 'turn-rw' });
  assert.equal(done.dryRun, false);
  assert.equal(fs.readFileSync(file, 'utf8'), 'before\n');
});

test('a JSON-RPC error name this client does not know is UNKNOWN, with error.data kept whole', async () => {
  const fake = await fakeDaemon({
    future: () => {
      throw new rpc.ResponseError(-32042, 'something new', { code: 'BRAND_NEW', hint: 'x' });
    },
  });
  const c = await HostdClient.connect(fake.socketPath);
  try {
    await assert.rejects(c.request('future', {}), (err: unknown) => {
      assert.ok(err instanceof HostdError, String(err));
      assert.equal(err.codeName, 'UNKNOWN');
      assert.equal(err.code, -32042);
      assert.deepEqual(err.data, { code: 'BRAND_NEW', hint: 'x' });
      assert.equal(err.retriable, false);
      return true;
    });
  } finally {
    await c.close();
    fake.close();
  }
});
