// The generated types hold a caller to the wire: these calls are only
// type-checked (tsc fails the build when an expected error goes away).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HostdError, withRetry, type HostdClient, type ToolErrorCode } from '../src/index';

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
    // @ts-expect-error a successful result has no error
    void r.error.code;
  } else {
    // A failure always has its error, typed by code.
    const code: ToolErrorCode = r.error.code;
    void code;
    // @ts-expect-error no such code
    if (r.error.code === 'EDIT_TAG_MISMACH') {
      void r;
    }
    switch (r.error.code) {
      case 'EDIT_TAG_MISMATCH': {
        const live: string | undefined = r.error.details?.liveTag;
        const first: number | undefined = r.error.details?.context?.[0]?.line;
        const retriable: true = r.error.retriable;
        void [live, first, retriable];
        break;
      }
      case 'EDIT_LINES_UNSEEN': {
        const merged: boolean | undefined = r.error.details?.merged;
        void merged;
        // @ts-expect-error EDIT_LINES_UNSEEN details have lines, not context
        void r.error.details?.context;
        break;
      }
      case 'NOT_FOUND': {
        const retriable: false = r.error.retriable;
        // The repeat guard's hint is the only detail a code without its own may carry.
        const hint: string | undefined = r.error.details?.recovery;
        void [retriable, hint];
        break;
      }
      // @ts-expect-error no such code
      case 'NOT_FOUD':
        break;
    }
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
  try {
    await client.listSessions();
  } catch (err) {
    if (err instanceof HostdError) {
      const known: boolean = err.codeName === 'SESSION_NOT_FOUND' || err.codeName === 'UNKNOWN';
      void known;
      // @ts-expect-error no such JSON-RPC error name
      void (err.codeName === 'SESION_NOT_FOUND');
    }
  }
  const retry = await withRetry(() => client.execute('s', 'write', { path: 'a', content: 'b' }));
  if (!retry.ok) {
    const busy: boolean = retry.error.code === 'HOST_BUSY';
    void busy;
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
