// scripts/generate.mjs: the schema forms docs/openrpc.json uses, the
// keywords it refuses, and the checked-in src/generated.ts being current.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { packageRoot, repoRoot } from './hostd';

interface Generator {
  tsType(schema: unknown, where: string, indent?: string): string;
  generate(doc: unknown): string;
  readDocument(): Record<string, unknown>;
  pascal(name: string): string;
}

// The generator is an ES module run by plain Node; tests load it as such.
const load = (): Promise<Generator> => import(path.join(packageRoot, 'scripts', 'generate.mjs')) as Promise<Generator>;

test('schemas become TypeScript types', async () => {
  const g = await load();
  assert.equal(g.tsType({ type: 'string' }, 'x'), 'string');
  assert.equal(g.tsType({ type: 'integer', minimum: 0 }, 'x'), 'number');
  assert.equal(g.tsType({}, 'x'), 'unknown');
  assert.equal(g.tsType({ type: 'string', enum: ['content', 'count'] }, 'x'), '"content" | "count"');
  assert.equal(g.tsType({ oneOf: [{ type: 'string' }, { type: 'integer' }] }, 'x'), 'string | number');
  assert.equal(g.tsType({ type: ['string', 'null'] }, 'x'), 'string | null');
  assert.equal(g.tsType({ $ref: '#/components/schemas/ReadArgs' }, 'x'), 'ReadArgs');
  assert.equal(g.tsType({ type: 'array', items: { type: 'string' } }, 'x'), 'string[]');
  assert.equal(g.tsType({ type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 }, 'x'), '[number, number]');
  assert.equal(g.tsType({ type: 'array', items: { type: ['string', 'null'] } }, 'x'), 'Array<string | null>');
  assert.equal(g.tsType({ type: 'object', additionalProperties: { type: 'integer' } }, 'x'), '{\n  [key: string]: number;\n}');
  assert.equal(g.tsType({ type: 'object', properties: {}, additionalProperties: false }, 'x'), 'Record<string, never>');
  assert.equal(
    g.tsType(
      { type: 'object', properties: { a: { type: 'string', description: 'the a' }, 'b-c': { type: 'boolean' } }, required: ['a'], additionalProperties: true },
      'x',
    ),
    '{\n  /** the a */\n  a: string;\n  "b-c"?: boolean;\n  [key: string]: unknown;\n}',
  );
  assert.equal(g.pascal('session.setWorkspace'), 'SessionSetWorkspace');
  assert.equal(g.pascal('$/cancelRequest'), 'CancelRequest');
});

test('the generator refuses what it cannot type rather than dropping it', async () => {
  const g = await load();
  assert.throws(() => g.tsType({ allOf: [{ type: 'string' }] }, 'm.result'), /m\.result: schema keyword "allOf" is not supported/);
  assert.throws(() => g.tsType({ $ref: 'other.json#/x' }, 'm.params.p'), /does not point into #\/components\/schemas/);
  assert.throws(() => g.tsType({ type: 'object', properties: {}, required: ['gone'] }, 'm'), /required member "gone" has no schema/);
  assert.throws(() => g.tsType({ type: 'tuple' }, 'm'), /unknown schema type "tuple"/);
});

test('src/generated.ts is what docs/openrpc.json generates', async () => {
  const g = await load();
  const doc = g.readDocument();
  const want = g.generate(doc);
  const got = fs.readFileSync(path.join(packageRoot, 'src', 'generated.ts'), 'utf8');
  assert.ok(got === want, 'src/generated.ts is out of date; run npm run generate');
  // Every method, notification and tool of the document has its types.
  for (const m of doc.methods as Array<{ name: string }>) {
    assert.match(got, new RegExp(`^  ${JSON.stringify(m.name).replace(/[.$/]/g, '\\$&')}: \\{ params: \\w+Params; result: \\w+Result \\};$`, 'm'));
  }
  assert.match(got, /^export interface ReviewRecordedParams \{$/m);
  assert.match(got, /^export interface CancelRequestParams \{$/m);
  assert.match(got, /^  "edit": EditArgs;$/m);
  assert.match(got, /^  "edit": EditResult;$/m);
  // The error codes: every JSON-RPC one and every tool one, each code's details typed.
  assert.match(got, /^  SESSION_NOT_FOUND: \{ code: -32001, retriable: false \},$/m);
  assert.match(got, /^  OVERLOADED: \{ code: -32007, retriable: true \},$/m);
  assert.match(got, /^  \| \{ code: "EDIT_TAG_MISMATCH"; message: string; retriable: true; details\?: EditTagMismatchDetails & Partial<RepeatGuardDetails> \}$/m);
  assert.match(got, /^  \| \{ code: "NOT_FOUND"; message: string; retriable: false; details\?: RepeatGuardDetails \}$/m);
  // Every code of the document, the daemon's own account, is typed: none
  // comes from anywhere else.
  for (const e of doc['x-tool-errors'] as Array<{ code: string }>) {
    assert.match(got, new RegExp(`^  \\| \\{ code: "${e.code}"; `, 'm'));
  }
  assert.match(got, /^  \| \{ code: "EDIT_REPAIR_AMBIGUOUS"; message: string; retriable: false; details\?: EditRepairAmbiguousDetails & Partial<RepeatGuardDetails> \}$/m);
});

// A document with the parts the error types need, and nothing else.
function errorDoc(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    openrpc: '1.2.6',
    info: { title: 't', version: '7' },
    methods: [
      {
        name: 'a.b',
        summary: 's',
        params: [],
        result: { name: 'r', schema: { type: 'object', properties: {}, additionalProperties: false } },
        errors: [{ code: -32001, message: 'GONE', data: { code: 'GONE' } }],
      },
    ],
    components: { errors: { GONE: { code: -32001, message: 'GONE', data: { code: 'GONE' }, 'x-retriable': false } }, schemas: {} },
    'x-tool-errors': [{ code: 'BAD', retriable: true, details: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }],
    ...over,
  };
}

test('the error codes: a union per kind, details typed, the methods\' errors checked against components.errors', async () => {
  const g = await load();
  const out = g.generate(errorDoc());
  assert.match(out, /^export const protocolVersion = 7;$/m);
  assert.match(out, /^  GONE: \{ code: -32001, retriable: false \},$/m);
  assert.match(out, /^export interface BadDetails \{\n  n: number;\n\}$/m);
  assert.match(out, /^export type ToolError =\n  \| \{ code: "BAD"; message: string; retriable: true; details\?: BadDetails \};$/m);
  const lacking = errorDoc({ components: { errors: {}, schemas: {} } });
  assert.throws(() => g.generate(lacking), /method a\.b documents error GONE \(-32001\), which components\.errors lacks/);
  assert.throws(() => g.generate(errorDoc({ 'x-tool-errors': [] })), /no x-tool-errors: the tool error codes cannot be typed/);
  assert.throws(() => g.generate(errorDoc({ 'x-tool-errors': [{ code: 'bad', retriable: 'yes' }] })), /x-tool-errors: want a new code in capitals/);
});
