// withRetry: calling again what failed for a reason a moment's wait can
// fix. Of the retriable errors of the wire contract only two need nothing
// but time: OVERLOADED (a JSON-RPC error: the daemon's memory budget had
// no room for the request, which was not run) and HOST_BUSY (the same for
// a write or edit, answered as a tool result; nothing was changed). The
// other retriable tool errors (EDIT_TAG_MISMATCH, EDIT_TAG_UNKNOWN,
// EDIT_LINES_UNSEEN) are retriable by the model once it has read what they
// show: the same call sent again fails the same way, so they go back to
// the model (runTool) and are never retried here.

import { HostdError } from './errors';
import type { ToolErrorCode } from './generated';
import type { AbortSignalLike } from './options';

// The tool error codes a retry of the same call can fix by itself.
const busyCodes: ReadonlySet<ToolErrorCode> = new Set<ToolErrorCode>(['HOST_BUSY']);

export interface RetryOptions {
  /** Calls in all, the first included. Default 4. */
  attempts?: number;
  /** The wait before the second call, in milliseconds, doubled before each next one. Default 250. */
  delayMs?: number;
  /** Aborting stops the waiting between calls: withRetry rejects with the signal's reason. */
  signal?: AbortSignalLike;
}

/**
 * isRetriable reports whether a call's outcome (what it rejected with, or
 * the tool result it resolved with) is one that calling again as it is may
 * fix: a HostdError whose code the wire contract marks retriable
 * (OVERLOADED), or a tool result with ok: false and HOST_BUSY.
 */
export function isRetriable(outcome: unknown): boolean {
  if (outcome instanceof HostdError) {
    return outcome.retriable;
  }
  if (typeof outcome !== 'object' || outcome === null) {
    return false;
  }
  const r = outcome as { ok?: unknown; error?: { code?: unknown } };
  return r.ok === false && busyCodes.has(r.error?.code as ToolErrorCode);
}

/**
 * withRetry calls fn, and calls it again, after a growing wait, while it
 * rejects or resolves with a retriable outcome (isRetriable), up to
 * options.attempts calls. It settles as the last call did: a tool result
 * still HOST_BUSY after the last attempt resolves as it is, and any other
 * outcome is returned or thrown at once. A call whose connection ended
 * (HostdConnectionError) is not retried: whether it ran is unknown.
 *
 *	const r = await withRetry(() => client.execute(sessionId, 'write', args));
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 4);
  let delay = options.delayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    let value: T;
    try {
      value = await fn(attempt);
    } catch (err) {
      if (attempt >= attempts || !isRetriable(err)) {
        throw err;
      }
      await wait(delay, options.signal);
      delay *= 2;
      continue;
    }
    if (attempt >= attempts || !isRetriable(value)) {
      return value;
    }
    await wait(delay, options.signal);
    delay *= 2;
  }
}

function wait(ms: number, signal: AbortSignalLike | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
