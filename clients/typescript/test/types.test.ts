// The generated types hold a caller to the wire: these calls are only
// type-checked (tsc fails the build when an expected error goes away).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { HostdClient } from '../src/index';

// Never called: it exists for tsc.
async function typeChecks(client: HostdClient): Promise<void> {
  await client.call('host.info');
  await client.call('session.create', { workspace: '/w' });
  // @ts-expect-error workspace is required
  await client.call('session.create', {});
  // @ts-expect-error an unknown param
  await client.call('session.delete', { sessionId: 's', force: true });
  // @ts-expect-error no such method
  await client.call('session.destroy', { sessionId: 's' });
  const r = await client.execute('s', 'read', { path: 'a.go', offset: 2 });
  // @ts-expect-error a failed read has no tag: test ok first
  void r.tag;
  if (r.ok) {
    const tag: string = r.tag;
    void tag;
  } else {
    const code: string | undefined = r.error?.code;
    void code;
  }
  // @ts-expect-error read takes path, not file
  await client.execute('s', 'read', { file: 'a.go' });
  // @ts-expect-error edit needs ops
  await client.execute('s', 'edit', { path: 'a.go' });
  // The tag goes in its own argument or in the path, as the header spells it.
  await client.execute('s', 'edit', { path: 'a.go#ABCD', ops: 'CUT 1' });
  const e = await client.execute('s', 'edit', { path: 'a.go', tag: 'ABCD', ops: 'CUT 1.=1' });
  if (e.ok) {
    // @ts-expect-error an edit result has no totalLines
    void e.totalLines;
  }
  client.onReviewRecorded((p) => {
    const change: string = p.entries[0]?.change ?? '';
    void change;
    // @ts-expect-error no such member
    void p.entries[0]?.sha;
  });
}

test('the type checks compiled', () => {
  assert.equal(typeof typeChecks, 'function');
});
