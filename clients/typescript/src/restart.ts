// Restart on exit (ClientOptions.restart): Restarter brings up a new Link
// after one ended, within a budget of restarts per window, and
// SessionMemory keeps the sessions this client created so that they are
// created again on the new connection (wire-contract §1: "re-create the
// session with the same sessionId").

import type { Link } from './connection';
import { HostdProtocolError } from './errors';
import type { SessionCreateParams } from './generated';
import type { RestartEvent, RestartOptions } from './options';

// Tries to bring up a new connection per restart, and the wait before the
// first retry (doubled for each next one: 0.2, 0.4, 0.8, 1.6, 3.2 s, so
// a restart gives up about 6 s after the connection ended).
const triesPerRestart = 6;
const firstRetryMs = 200;

/**
 * Restarter runs the restarts of one client. Locking: none; it runs on
 * Node's one thread, and the client starts at most one restart at a time
 * (only the current link's end starts one).
 */
export class Restarter {
  private readonly maxRestarts: number;
  private readonly windowMs: number;
  // When each restart in the window started, oldest first.
  private readonly times: number[] = [];
  private stopped = false;
  private running: Promise<unknown> | undefined;
  // Cuts a wait between tries short when the client closes.
  private wake: (() => void) | undefined;

  constructor(
    options: RestartOptions,
    private readonly open: () => Promise<Link>,
    private readonly prepare: (link: Link) => Promise<Omit<RestartEvent, 'reason'>>,
  ) {
    this.maxRestarts = options.maxRestarts ?? 5;
    this.windowMs = options.windowMs ?? 180_000;
  }

  /** canRestart reports whether one more restart fits the budget. */
  canRestart(): boolean {
    const since = Date.now() - this.windowMs;
    while (this.times.length > 0 && this.times[0]! < since) {
      this.times.shift();
    }
    return !this.stopped && this.times.length < this.maxRestarts;
  }

  /** describeBudget says what canRestart ran out of, for messages. */
  describeBudget(): string {
    return `${this.maxRestarts} restarts within ${Math.round(this.windowMs / 1000)} s`;
  }

  /**
   * start brings up a new link: it opens one (up to 6 tries, backing off),
   * lets prepare create the sessions again, and resolves with the link and
   * what became of the sessions. It rejects when every try failed, the
   * daemon speaks another protocol, or stop was called.
   */
  start(reason: string): Promise<{ link: Link; event: RestartEvent }> {
    this.times.push(Date.now());
    const run = this.run(reason);
    this.running = run.catch(() => undefined);
    return run;
  }

  /** stop ends a restart in progress (closing the link it brought up) and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async run(reason: string): Promise<{ link: Link; event: RestartEvent }> {
    let last: unknown;
    for (let attempt = 0; attempt < triesPerRestart && !this.stopped; attempt++) {
      if (attempt > 0) {
        await this.sleep(firstRetryMs * 2 ** (attempt - 1));
        if (this.stopped) {
          break;
        }
      }
      let link: Link;
      try {
        link = await this.open();
      } catch (err) {
        last = err;
        if (err instanceof HostdProtocolError) {
          break; // another try meets the same daemon
        }
        continue;
      }
      const sessions = await this.prepare(link);
      if (this.stopped) {
        await link.close();
        break;
      }
      if (link.isEnded) {
        last = new Error(link.describeEnd());
        continue;
      }
      return { link, event: { reason, ...sessions } };
    }
    if (this.stopped) {
      throw new Error('the client was closed');
    }
    const why = last instanceof Error ? last.message : String(last);
    throw new Error(`${reason}; restarting failed (${triesPerRestart} tries): ${why}`);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

// At most this many sessions are remembered, the least recently created
// forgotten first: a daemon holds at most limits.maxSessions (256 by
// default), so more means sessions deleted by other connections.
const maxRemembered = 1024;

/** SessionMemory is the sessions a client created and did not delete, with their params. */
export class SessionMemory {
  private readonly sessions = new Map<string, SessionCreateParams>();

  /** observe updates the memory from a call that succeeded. */
  observe(method: string, params: unknown, result: unknown): void {
    const p = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
    const r = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
    const id = typeof r['sessionId'] === 'string' ? r['sessionId'] : p['sessionId'];
    if (typeof id !== 'string') {
      return;
    }
    switch (method) {
      case 'session.create':
        this.sessions.delete(id);
        this.sessions.set(id, { ...(p as unknown as SessionCreateParams), sessionId: id });
        if (this.sessions.size > maxRemembered) {
          this.sessions.delete(this.sessions.keys().next().value!);
        }
        break;
      case 'session.setWorkspace': {
        const s = this.sessions.get(id);
        if (s !== undefined && typeof r['workspace'] === 'string') {
          s.workspace = r['workspace'];
        }
        break;
      }
      case 'session.delete':
        this.sessions.delete(id);
        break;
    }
  }

  /** recreate creates every remembered session on link, and says which it could not. */
  async recreate(link: Link, timeoutMs: number): Promise<Omit<RestartEvent, 'reason'>> {
    const out: Omit<RestartEvent, 'reason'> = { sessions: [], failed: [] };
    for (const [sessionId, params] of this.sessions) {
      try {
        await link.request('session.create', params, undefined, timeoutMs);
        out.sessions.push(sessionId);
      } catch (error) {
        out.failed.push({ sessionId, error });
      }
    }
    return out;
  }
}
