// The controller's side of lua/portico/keepalive_drain.lua: around each
// reload the serving workers answer `Connection: close`, so that clients
// close their kept-alive connections before the retiring workers would close
// them under a request in flight (README.md, Reloads and kept-alive clients).
// A drain that cannot be started or ended is logged, never fatal: the reload
// goes on as it would without it, and the drain ends by itself.
import { Agent, request } from 'undici';
import type { Logger } from '../../log/logger.js';
import { servingWorkers, untilWorkersRetired } from './process/workerTitles.js';
import { KEEPALIVE_DRAIN_PATH } from './render/renderKeepAliveDrain.js';

/** Told by NginxProcess around each reload. */
export interface ReloadDrain {
  /** Before SIGHUP; `maxMs`: how long the reload may take at most (the drain ends by itself after it). */
  begin(masterPid: number, maxMs: number): Promise<void>;
  /** Once the reload's outcome is known; `reloaded`: the master started new workers and told the old ones to quit. */
  end(reloaded: boolean): Promise<void>;
}

/** A call on the configuration socket answers in well under this; a stuck one must not hold up the reload. */
const CALL_TIMEOUT_MS = 2_000;
/** How long the drain waits for the old workers to take their quit signal (each does at its next event loop turn). */
const RETIRE_TIMEOUT_MS = 5_000;

export class KeepAliveDrain implements ReloadDrain {
  private readonly dispatcher: Agent;
  /** The workers that served when the drain began. */
  private draining: readonly number[] = [];

  constructor(
    socketPath: string,
    private readonly logger: Logger,
  ) {
    this.dispatcher = new Agent({ connect: { socketPath } });
  }

  async begin(masterPid: number, maxMs: number): Promise<void> {
    this.draining = await servingWorkers(masterPid);
    await this.call('PUT', `?seconds=${Math.ceil((maxMs + RETIRE_TIMEOUT_MS) / 1000)}`, 'starting');
  }

  /**
   * The master has signalled the old workers when the reload is done, but a
   * busy one takes the signal at its next turn: until then it keeps
   * connections alive, so the drain lasts until each has retired.
   */
  async end(reloaded: boolean): Promise<void> {
    if (reloaded && !(await untilWorkersRetired(this.draining, RETIRE_TIMEOUT_MS))) {
      this.logger.warn(
        { workers: this.draining, timeoutMs: RETIRE_TIMEOUT_MS },
        'old nginx workers still serving; ending the keep-alive drain',
      );
    }
    this.draining = [];
    await this.call('DELETE', '', 'ending');
  }

  private async call(method: 'PUT' | 'DELETE', query: string, what: string): Promise<void> {
    try {
      // The host only fills the Host header: the dispatcher connects to the socket.
      const response = await request(`http://localhost${KEEPALIVE_DRAIN_PATH}${query}`, {
        method,
        dispatcher: this.dispatcher,
        // A connection of its own: a kept-alive one may be to a worker the last reload retired, which closes it.
        reset: true,
        headersTimeout: CALL_TIMEOUT_MS,
        bodyTimeout: CALL_TIMEOUT_MS,
      });
      const answer = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${answer.slice(0, 200)}`);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, `${what} the keep-alive drain failed; reloading without it`);
    }
  }
}
