// Pushes live state to the Lua configuration endpoint on nginx's
// configuration server (a unix socket only the controller can reach), retrying with backoff (--dynamic-configuration-retries), and
// only the parts whose text changed since the last accepted push.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { Logger } from '../../log/logger.js';
import { backoffDelay, type BackoffPolicy } from '../../retry/backoff.js';
import type { LiveState } from './liveState.js';

// In this order: a pending route names backends that must be there first.
const PARTS = {
  backends: '/configuration/backends',
  certificates: '/configuration/certificates',
  routes: '/configuration/routes',
  authentication: '/configuration/authentication',
} as const;

export interface LiveStateClientOptions {
  /** The configuration server's unix socket. */
  socketPath: string;
  logger: Logger;
  /** Attempts after the first, as ingress-nginx's --dynamic-configuration-retries. */
  retries: number;
  backoff?: BackoffPolicy;
}

export class LiveStateClient {
  private readonly accepted: Partial<LiveState> = {};
  /** Pushes run one at a time, so `accepted` always matches what nginx last took. */
  private queue: Promise<void> = Promise.resolve();
  /** Pushes that failed after every retry (for metrics and tests). */
  failures = 0;

  private readonly dispatcher: Agent;

  constructor(private readonly options: LiveStateClientOptions) {
    this.dispatcher = new Agent({ connect: { socketPath: options.socketPath } });
  }

  /** Sends the changed parts; rejects when a part is still refused after every retry. */
  push(state: LiveState): Promise<void> {
    const pushed = this.queue.then(() => this.pushNow(state));
    this.queue = pushed.catch(() => undefined);
    return pushed;
  }

  private async pushNow(state: LiveState): Promise<void> {
    for (const part of Object.keys(PARTS) as (keyof LiveState)[]) {
      // The same text is kept as the newer string, which the caller holds too: two equal strings of the
      // backends were 4 MiB at 10,000 Ingresses.
      if (this.accepted[part] !== state[part]) await this.send(part, state[part]);
      this.accepted[part] = state[part];
    }
  }

  /** nginx lost its state (a restarted master): the next push sends everything. */
  forget(): void {
    for (const part of Object.keys(PARTS) as (keyof LiveState)[]) delete this.accepted[part];
  }

  /** Whether nginx holds pushed backends (its shared memory survives reloads, not restarts). */
  async initialized(timeoutMs = 2000): Promise<boolean> {
    try {
      const response = await request(this.url('/is-dynamic-lb-initialized'), {
        dispatcher: this.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await response.body.dump();
      return response.statusCode === 200;
    } catch {
      return false;
    }
  }

  private url(path: string): string {
    // The host only fills the Host header: the dispatcher connects to the socket.
    return `http://localhost${path}`;
  }

  private async send(part: keyof LiveState, body: string): Promise<void> {
    const backoff = this.options.backoff ?? { initialMs: 100, maxMs: 5000 };
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await request(this.url(PARTS[part]), {
          method: 'POST',
          dispatcher: this.dispatcher,
          body,
          headers: { 'content-type': 'application/json' },
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        const answer = await response.body.text();
        if (response.statusCode === 201) return;
        throw new Error(`HTTP ${response.statusCode}: ${answer.slice(0, 200)}`);
      } catch (error) {
        if (attempt >= this.options.retries) {
          this.failures++;
          throw new Error(`pushing ${part} to nginx failed after ${attempt + 1} attempts: ${(error as Error).message}`);
        }
        const delay = backoffDelay(attempt + 1, backoff);
        this.options.logger.warn(
          { part, attempt: attempt + 1, retryInMs: Math.round(delay), err: (error as Error).message },
          'live update refused; retrying',
        );
        await sleep(delay);
      }
    }
  }
}
