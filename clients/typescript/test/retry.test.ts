// withRetry and isRetriable. OVERLOADED and HOST_BUSY come from a stand-in
// daemon: a real hostd answers them only when its memory budget is full,
// which a test cannot arrange from outside (the Go tests of package budget
// and tools hold hostd to them). What must not be retried is shown against
// a real hostd.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as rpc from 'vscode-jsonrpc/node';

import { HostdClient, HostdConnectionError, HostdError, isRetriable, withRetry } from '../src/index';
import { fakeDaemon } from './fake';
import { hostdBinary, standaloneArgs, tempDir } from './hostd';

// busyDaemon answers "work" with OVERLOADED and tools.execute with
// HOST_BUSY, each the first `times` times it is called.
async function busyDaemon(times: number) {
  let work = 0;
  let execute = 0;
  return fakeDaemon({
    work: () => {
      if (++work <= times) {
        throw new rpc.ResponseError(-32007, 'overloaded: the memory budget had no room for this request; retry in a moment', { code: 'OVERLOADED' });
      }
      return { done: work };
    },
    'tools.execute': () => {
      if (++execute <= times) {
        return {
          ok: false,
          content: 'Error HOST_BUSY: the daemon is busy; call again in a moment',
          toolCallId: `tc-${execute}`,
          warnings: [],
          error: { code: 'HOST_BUSY', message: 'the daemon is busy; call again in a moment', retriable: true },
        };
      }
      return { ok: true, content: '[a.txt#ABCD]\ncreated, 1 line', toolCallId: `tc-${execute}`, warnings: [], path: 'a.txt', tag: 'ABCD', created: true, bytes: 2 };
    },
  });
}

test('withRetry calls again after OVERLOADED and HOST_BUSY, waiting longer each time', async () => {
  const fake = await busyDaemon(2);
  const client = await HostdClient.connect(fake.socketPath);
  try {
    const when: number[] = [];
    const done = await withRetry(
      () => {
        when.push(Date.now());
        return client.request('work', {});
      },
      { delayMs: 40 },
    );
    assert.deepEqual(done, { done: 3 });
    assert.equal(when.length, 3);
    assert.ok(when[1]! - when[0]! >= 40 && when[2]! - when[1]! >= 80, `waits ${when[1]! - when[0]!}, ${when[2]! - when[1]!} ms`);

    const attempts: number[] = [];
    const written = await withRetry((attempt) => {
      attempts.push(attempt);
      return client.execute('s', 'write', { path: 'a.txt', content: 'a\n' });
    }, { delayMs: 1 });
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.equal(written.ok, true);
  } finally {
    await client.close();
    fake.close();
  }
});

test('withRetry gives up after its attempts with the last outcome as it is', async () => {
  const fake = await busyDaemon(10);
  const client = await HostdClient.connect(fake.socketPath);
  try {
    await assert.rejects(withRetry(() => client.request('work', {}), { attempts: 2, delayMs: 1 }), (err: unknown) => {
      assert.ok(err instanceof HostdError, String(err));
      assert.equal(err.codeName, 'OVERLOADED');
      assert.equal(err.retriable, true);
      return true;
    });
    const last = await withRetry(() => client.execute('s', 'write', { path: 'a.txt', content: 'a\n' }), { attempts: 3, delayMs: 1 });
    assert.equal(last.ok, false);
    assert.equal(last.toolCallId, 'tc-3');
    // Aborting stops the wait between calls.
    const abort = new AbortController();
    const pending = withRetry(() => client.request('work', {}), { delayMs: 60_000, signal: abort.signal });
    setTimeout(() => abort.abort(new Error('stopped waiting')), 20);
    await assert.rejects(pending, /stopped waiting/);
  } finally {
    await client.close();
    fake.close();
  }
});

test('what a retry cannot fix is returned or thrown at once: a real hostd\'s errors', async () => {
  const client = await HostdClient.spawn({ bin: hostdBinary(), args: standaloneArgs() });
  try {
    const workspace = tempDir('ws-');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'a\n');
    await client.createSession({ workspace, sessionId: 's-retry' });
    let calls = 0;
    await assert.rejects(
      withRetry(() => {
        calls++;
        return client.deleteSession('s-none');
      }),
      (err: unknown) => err instanceof HostdError && err.codeName === 'SESSION_NOT_FOUND',
    );
    assert.equal(calls, 1);

    // EDIT_TAG_UNKNOWN is retriable, by the model once it has read the
    // file: the same call again fails the same way, so it is not repeated.
    calls = 0;
    const edit = await withRetry(() => {
      calls++;
      return client.execute('s-retry', 'edit', { path: 'a.txt', tag: 'ABCD', ops: 'PUT 1.=1:\n+x' });
    });
    assert.equal(calls, 1);
    assert.equal(edit.ok ? 'ok' : edit.error.code, 'EDIT_TAG_UNKNOWN');
    if (!edit.ok) {
      assert.equal(edit.error.retriable, true);
      assert.equal(isRetriable(edit), false);
    }
    // Nor is a call whose connection ended: whether it ran is unknown.
    assert.equal(isRetriable(new HostdConnectionError('tools.execute', 'gone')), false);
    assert.equal(isRetriable(undefined), false);
  } finally {
    await client.close();
  }
});
