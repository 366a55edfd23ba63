// The golden wire exchanges of testdata/golden (format: testdata/README.md)
// replayed through the client's untyped request() and notify(), against a
// real hostd per archive. An archive with a frame no JSON-RPC client sends
// (a body that is not JSON, a batch, an id the client does not choose) is
// skipped here, naming the frame: the Go replay (TestGoldenWire) covers it.
// The client picks its own request ids, so an answer's id is not compared.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { HostdClient, HostdError } from '../src/index';
import { repoRoot, socketDaemon, tempDir } from './hostd';

const goldenDir = path.join(repoRoot, 'testdata', 'golden');

interface Archive {
  comment: string;
  files: Map<string, Buffer>;
}

// parseTxtar splits a txtar archive, read as bytes: a comment, then
// sections each opened by a line "-- NAME --".
export function parseTxtar(data: Buffer): Archive {
  const text = data.toString('latin1'); // one char per byte: offsets are byte offsets
  const marker = /^-- (.+?) --$/gm;
  const files = new Map<string, Buffer>();
  let comment: string | undefined;
  let name: string | undefined;
  let start = 0;
  for (let m = marker.exec(text); m !== null; m = marker.exec(text)) {
    const body = data.subarray(start, m.index);
    if (name === undefined) {
      comment = body.toString('utf8');
    } else {
      files.set(name, body);
    }
    name = m[1];
    start = m.index + m[0].length + 1;
  }
  if (name === undefined) {
    return { comment: text, files };
  }
  files.set(name, data.subarray(Math.min(start, data.length)));
  return { comment: comment ?? '', files };
}

// clientForm is why the client cannot send request body as written, or
// undefined when it can.
function clientForm(body: string): string | undefined {
  let req: unknown;
  try {
    req = JSON.parse(body);
  } catch {
    return 'a body that is not JSON';
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return 'a frame that is not a request object';
  }
  const r = req as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    if (!['jsonrpc', 'id', 'method', 'params'].includes(k)) {
      return `a request member "${k}"`;
    }
  }
  if (r['jsonrpc'] !== '2.0') {
    return 'a request without jsonrpc "2.0"';
  }
  if (typeof r['method'] !== 'string') {
    return 'a request without a method name';
  }
  if ('id' in r && typeof r['id'] !== 'number') {
    return `a request id the client does not choose (${JSON.stringify(r['id'])})`;
  }
  if ('params' in r && (typeof r['params'] !== 'object' || r['params'] === null)) {
    return `params that are not an object or an array (${JSON.stringify(r['params'])})`;
  }
  return undefined;
}

// normalize replaces the workspace root, then the temporary root, in
// every string of v by their placeholders.
function normalize(v: unknown, ws: string, root: string): unknown {
  if (typeof v === 'string') {
    return v.split(ws).join('${WS}').split(root).join('${ROOT}');
  }
  if (Array.isArray(v)) {
    return v.map((x) => normalize(x, ws, root));
  }
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, ws, root)]));
  }
  return v;
}

// mismatch says where got differs from the golden want, or returns
// undefined when it matches (testdata/README.md, "Comparing").
export function mismatch(want: unknown, got: unknown, at = '$'): string | undefined {
  if (want === '$any') {
    return got === undefined ? `${at}: missing` : undefined;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) {
      return `${at}: want an array, got ${JSON.stringify(got)}`;
    }
    if (got.length !== want.length) {
      return `${at}: want ${want.length} elements, got ${got.length}: ${JSON.stringify(got)}`;
    }
    for (let i = 0; i < want.length; i++) {
      const d = mismatch(want[i], got[i], `${at}[${i}]`);
      if (d) {
        return d;
      }
    }
    return undefined;
  }
  if (typeof want === 'object' && want !== null) {
    if (typeof got !== 'object' || got === null || Array.isArray(got)) {
      return `${at}: want an object, got ${JSON.stringify(got)}`;
    }
    const g = got as Record<string, unknown>;
    for (const [k, w] of Object.entries(want)) {
      if (w === '$any?') {
        continue;
      }
      if (!(k in g)) {
        return `${at}.${k}: missing`;
      }
      const d = mismatch(w, g[k], `${at}.${k}`);
      if (d) {
        return d;
      }
    }
    for (const k of Object.keys(g)) {
      if (!(k in want)) {
        return `${at}.${k}: not in the golden (${JSON.stringify(g[k])})`;
      }
    }
    return undefined;
  }
  return want === got ? undefined : `${at}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

async function replay(name: string, archive: Archive): Promise<void> {
  const root = tempDir('golden-');
  fs.mkdirSync(path.join(root, 'ws'));
  const extra: string[] = [];
  // The transcripts are the same whatever language servers this machine
  // has: the daemon runs with none, unless the archive's config says.
  let config: Record<string, unknown> = {};
  for (const [file, body] of archive.files) {
    if (/^\d+\.(request|response|notifications)\.json$/.test(file) || file.startsWith('after/')) {
      continue;
    }
    if (file === 'config.json') {
      config = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      continue;
    }
    const target = path.join(root, file);
    if (file.endsWith('/')) {
      fs.mkdirSync(target, { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, body);
    }
  }
  if (!('languageServers' in config)) {
    config.languageServers = { enabled: false };
  }
  const configPath = path.join(root, 'hostd-config.json');
  fs.writeFileSync(configPath, JSON.stringify(config));
  extra.push('--config', configPath);
  const ws = fs.realpathSync(path.join(root, 'ws'));
  const daemon = await socketDaemon(extra);
  // No protocol check: the daemon must see the archive's requests and
  // nothing else (debug.stats counts every call).
  const client = await HostdClient.connect(daemon.socketPath, { checkProtocol: false });
  const notes: unknown[] = [];
  client.onReviewRecorded((params) => notes.push({ jsonrpc: '2.0', method: 'review.recorded', params }));
  try {
    for (let n = 1; archive.files.has(`${n}.request.json`); n++) {
      const raw = archive.files.get(`${n}.request.json`)!.toString('utf8').replace(/\n$/, '');
      const req = JSON.parse(raw.split('${WS}').join(ws).split('${ROOT}').join(root)) as { id?: number; method: string; params?: unknown };
      notes.length = 0;
      if (req.id === undefined) {
        await client.notify(req.method, req.params);
        continue;
      }
      let answer: { result?: unknown; error?: unknown };
      try {
        answer = { result: await client.request(req.method, req.params) };
      } catch (err) {
        if (!(err instanceof HostdError)) {
          throw err;
        }
        answer = { error: err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data } };
      }
      const golden = JSON.parse(archive.files.get(`${n}.response.json`)!.toString('utf8')) as Record<string, unknown>;
      const want = 'error' in golden ? { error: golden['error'] } : { result: golden['result'] };
      const d = mismatch(want, normalize(answer, ws, root));
      assert.equal(d, undefined, `${name} request ${n} (${req.method}): ${d}`);
      const wantNotes = archive.files.has(`${n}.notifications.json`) ? JSON.parse(archive.files.get(`${n}.notifications.json`)!.toString('utf8')) : [];
      const dn = mismatch(wantNotes, normalize(notes, ws, root));
      assert.equal(dn, undefined, `${name} notifications of request ${n}: ${dn}`);
    }
    for (const [file, body] of archive.files) {
      if (file.startsWith('after/')) {
        const rel = file.slice('after/'.length);
        assert.deepEqual(fs.readFileSync(path.join(root, rel)), body, `${name}: ${rel} after the exchanges`);
      }
    }
  } finally {
    await client.close();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
}

test('golden wire exchanges replay through the client', async (t) => {
  if (!fs.existsSync(goldenDir)) {
    const msg = `${path.relative(repoRoot, goldenDir)} is not in this checkout: update it to a revision that has the golden wire exchanges (testdata/README.md describes them)`;
    if (process.env['CI'] === 'true') {
      assert.fail(msg);
    }
    t.skip(msg);
    return;
  }
  const names = fs.readdirSync(goldenDir).filter((f) => f.endsWith('.txtar')).sort();
  assert.ok(names.length > 0, `no .txtar archives in ${goldenDir}`);
  for (const name of names) {
    const archive = parseTxtar(fs.readFileSync(path.join(goldenDir, name)));
    let why: string | undefined;
    for (let n = 1; archive.files.has(`${n}.request.json`) && why === undefined; n++) {
      const reason = clientForm(archive.files.get(`${n}.request.json`)!.toString('utf8').replace(/\n$/, ''));
      if (reason) {
        why = `request ${n} is ${reason}, which no JSON-RPC client library sends; TestGoldenWire replays it`;
      }
    }
    await t.test(name, { skip: why ?? false }, () => replay(name, archive));
  }
});

test('golden comparison: placeholders, missing and extra members, txtar sections', () => {
  assert.equal(mismatch({ a: '$any', b: '$any?', c: [1, 'x'] }, { a: null, c: [1, 'x'] }), undefined);
  assert.equal(mismatch({ a: '$any' }, {}), '$.a: missing');
  assert.equal(mismatch({ a: 1 }, { a: 1, b: 2 }), '$.b: not in the golden (2)');
  assert.equal(mismatch([1, 2], [1]), '$: want 2 elements, got 1: [1]');
  assert.equal(mismatch({ a: { b: 'x' } }, { a: { b: 'y' } }), '$.a.b: want "x", got "y"');
  const archive = parseTxtar(Buffer.from('what it shows\n-- ws/a.txt --\n\xff\r\nb\n-- 1.request.json --\n{}\n', 'latin1'));
  assert.equal(archive.comment, 'what it shows\n');
  assert.deepEqual(archive.files.get('ws/a.txt'), Buffer.from('\xff\r\nb\n', 'latin1'));
  assert.equal(archive.files.get('1.request.json')?.toString(), '{}\n');
});
