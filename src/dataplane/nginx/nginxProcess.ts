// Portico's own nginx: a master process it starts in a prefix directory it
// owns (process/prefixLayout.ts), feeds configurations to, keeps running, and
// stops. The renderer's contract is in process/nginxArguments.ts: nginx is
// told `daemon`, `master_process`, `pid` and `lock_file` on the command line,
// so the rendered text must not contain them.
//
// Only pass text Portico rendered: the first configuration is loaded by
// `nginx -t` and then by the master, later ones by the master alone, and
// loading runs what it names (modules, Lua).
import { hash } from 'node:crypto';
import { link, rename, rm, writeFile } from 'node:fs/promises';
import type { Logger } from '../../log/logger.js';
import { backoffDelay, type BackoffPolicy } from '../../retry/backoff.js';
import { ControlLog } from './process/controlLog.js';
import { launchMaster } from './process/launchMaster.js';
import { describeExit, type MasterProcess, type ProcessExit } from './process/masterProcess.js';
import { createPrefixDirs, prefixLayout, type PrefixLayout } from './process/prefixLayout.js';
import { ConfigRefusedError, refusedLine } from './process/refusedLine.js';
import { reloadMaster, type ReloadResult } from './process/reloadMaster.js';
import type { ReloadDrain } from './keepAliveDrain.js';

export { prefixLayout, type PrefixLayout, type TempDirs } from './process/prefixLayout.js';
export { ConfigRefusedError } from './process/refusedLine.js';

/** A configuration's text, or its UTF-8 bytes (what the renderer writes: no string of 13 MiB at 10,000 Ingresses). */
export type NginxConfText = string | Uint8Array;

export type ApplyResult =
  | { readonly outcome: 'unchanged' }
  | { readonly outcome: 'reloaded' }
  /** nginx refused the configuration when loading it; the previous one keeps serving. `line`: of the refused text, when nginx named one. */
  | { readonly outcome: 'rejected'; readonly error: string; readonly line?: number };

export interface NginxTimeouts {
  /** From spawning the master until it serves. */
  readonly startMs: number;
  /** From SIGHUP until the master has finished loading, or failed to load, the new configuration. */
  readonly reloadMs: number;
  /** Graceful shutdown (in-flight requests finish) before the master and its workers are killed. */
  readonly stopMs: number;
}

export interface NginxProcessOptions {
  /** Default /usr/sbin/nginx. */
  binary?: string;
  /** The directory Portico owns; created if missing. */
  prefix: string;
  logger: Logger;
  /** Delays between restarts of a master that died. */
  restartBackoff?: BackoffPolicy;
  timeouts?: Partial<NginxTimeouts>;
  /** Told when a running master dies (before its restart): the health check must not wait to notice. */
  onMasterExit?: () => void;
  /** Told before and after each reload: the serving workers ask clients to close kept-alive connections meanwhile (keepAliveDrain.ts). */
  reloadDrain?: ReloadDrain;
}

// Loading a configuration grows with its size: bench/render.ts measured `nginx -t`
// at 49-91 s for 10,000 Ingresses on 2 cores with Debian's Lua module (which
// the data plane falls back to), so a minute is not enough.
const DEFAULT_TIMEOUTS: NginxTimeouts = { startMs: 300_000, reloadMs: 300_000, stopMs: 30_000 };
// A dead master is an outage: retry quickly at first.
const DEFAULT_RESTART_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 10_000 };
const CONTROL_LOG_TRIM_INTERVAL_MS = 60_000;
const CONTROL_LOG_MAX_BYTES = 1024 * 1024;

export class NginxProcess {
  readonly layout: PrefixLayout;
  private readonly binary: string;
  private readonly logger: Logger;
  private readonly restartBackoff: BackoffPolicy;
  private readonly timeouts: NginxTimeouts;
  private readonly controlLog: ControlLog;
  private readonly onMasterExitHook: (() => void) | undefined;
  private readonly reloadDrain: ReloadDrain | undefined;

  /** Between start() and stop(): a master should be running, and is restarted when it dies. */
  private wanted = false;
  private master: MasterProcess | undefined;
  /**
   * A digest of what the master runs now; undefined when unknown (a reload that was not confirmed). A
   * digest, not the text: only compared, and the text (13 MiB at 10,000 Ingresses) is in
   * `lastGoodConfigFile` for restarts.
   */
  private runningDigest: string | undefined;
  /** The digest of `lastGoodConfigFile`'s text: what a restarted master runs. */
  private lastGoodDigest: string | undefined;
  private restartAttempt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  /** Operations on the master and the prefix, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private reloadCount = 0;
  private restartCount = 0;

  constructor(options: NginxProcessOptions) {
    this.layout = prefixLayout(options.prefix);
    this.binary = options.binary ?? '/usr/sbin/nginx';
    this.logger = options.logger;
    this.restartBackoff = options.restartBackoff ?? DEFAULT_RESTART_BACKOFF;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.controlLog = new ControlLog(this.layout.controlLog);
    this.onMasterExitHook = options.onMasterExit;
    this.reloadDrain = options.reloadDrain;
  }

  /** Successful reloads since construction. */
  get reloads(): number {
    return this.reloadCount;
  }

  /** Times a master that died was started again. */
  get restarts(): number {
    return this.restartCount;
  }

  get running(): boolean {
    return this.master !== undefined;
  }

  get masterPid(): number | undefined {
    return this.master?.pid;
  }

  /**
   * Runs `configText`; rejects with nginx's message if it does not start (a
   * ConfigRefusedError, with the line when nginx named one, if it refused the
   * text). There is no `nginx -t` first, as for a reload (apply): the master's
   * own load refuses the same, and a test would parse the whole configuration
   * a second time (15 of the 39 s from start to serving 10,000 Ingresses).
   */
  start(configText: NginxConfText): Promise<void> {
    return this.serialize(async () => {
      if (this.wanted) throw new Error('nginx is already started');
      await createPrefixDirs(this.layout);
      await writeFile(this.layout.candidateConfigFile, configText, { mode: 0o600 });
      await rename(this.layout.candidateConfigFile, this.layout.configFile);
      const started = performance.now();
      let master: MasterProcess;
      try {
        master = await launchMaster(this.binary, this.layout, this.controlLog, this.timeouts.startMs);
      } catch (error) {
        await writeFile(this.layout.rejectedConfigFile, configText, { mode: 0o600 });
        const message = (error as Error).message.replaceAll(this.layout.configFile, this.layout.rejectedConfigFile);
        throw new ConfigRefusedError(message, refusedLine(message, this.layout.rejectedConfigFile, textOf(configText)));
      }
      await this.adopt(master, configText);
      this.wanted = true;
      this.restartAttempt = 0;
      this.startTrimming();
      this.logger.info(
        { pid: this.masterPid, prefix: this.layout.prefix, startMs: Math.round(performance.now() - started) },
        'nginx started',
      );
    });
  }

  /**
   * Makes `configText` the running configuration, unless it already is.
   * Whatever nginx refuses leaves the previous configuration serving and is
   * kept as `rejectedConfigFile`.
   *
   * There is no `nginx -t` first: a reload loads the configuration in the
   * master, which keeps running the previous one when that fails and logs
   * why (reloadMaster.ts reads it), and a start that fails starts nothing.
   * A test would parse the whole configuration a second time, which takes
   * seconds with thousands of Ingresses (bench/ingressAtScale.ts).
   *
   * Only the text is compared (its digest with the running one's): a change to a
   * file it references (a certificate) needs a change in the text (a content hash
   * in the path) too.
   */
  apply(configText: NginxConfText): Promise<ApplyResult> {
    return this.serialize(async () => {
      if (!this.wanted) throw new Error('nginx is not started');
      if (digestOf(configText) === this.runningDigest) return { outcome: 'unchanged' };
      await writeFile(this.layout.candidateConfigFile, configText, { mode: 0o600 });
      await rename(this.layout.candidateConfigFile, this.layout.configFile);
      return this.master === undefined ? this.startInsteadOfReload(configText) : this.reload(this.master, configText);
    });
  }

  /** Graceful shutdown, bounded by `graceMs` (default `timeouts.stopMs`): resolves once the master has exited and any process left of its group was killed. */
  stop(graceMs = this.timeouts.stopMs): Promise<void> {
    this.wanted = false;
    clearTimeout(this.restartTimer);
    clearInterval(this.trimTimer);
    return this.serialize(async () => {
      const master = this.master;
      if (master === undefined) return;
      await master.stop(graceMs);
      this.master = undefined;
      this.runningDigest = undefined;
      this.logger.info({ pid: master.pid }, 'nginx stopped');
    });
  }

  private async reload(master: MasterProcess, configText: NginxConfText): Promise<ApplyResult> {
    const started = performance.now();
    await this.reloadDrain?.begin(master.pid, this.timeouts.reloadMs);
    let result: ReloadResult | undefined;
    try {
      result = await reloadMaster(master, this.controlLog, this.timeouts.reloadMs);
    } finally {
      await this.reloadDrain?.end(result?.outcome === 'reloaded');
    }
    if (result.outcome === 'reloaded') {
      await this.runs(configText);
      this.reloadCount++;
      this.logger.info({ pid: master.pid, reloads: this.reloadCount, reloadMs: Math.round(performance.now() - started) }, 'nginx reloaded');
      if (result.warnings !== '') this.logger.warn({ warnings: result.warnings }, 'nginx warnings at reload');
      return { outcome: 'reloaded' };
    }
    // The master may yet run it; only a reload that later succeeds says what it runs.
    if (result.outcome === 'unconfirmed') this.runningDigest = undefined;
    await this.restoreLastGood(configText);
    return this.rejected(result.error, configText);
  }

  /** The master died and awaits its restart: start it with the new configuration rather than the old one. */
  private async startInsteadOfReload(configText: NginxConfText): Promise<ApplyResult> {
    let master: MasterProcess;
    try {
      master = await launchMaster(this.binary, this.layout, this.controlLog, this.timeouts.startMs);
    } catch (error) {
      await this.restoreLastGood(configText);
      return this.rejected((error as Error).message, configText); // the pending restart still runs the last good configuration
    }
    await this.adopt(master, configText);
    clearTimeout(this.restartTimer);
    this.restartCount++;
    this.logger.info({ pid: this.masterPid, restarts: this.restartCount }, 'nginx restarted, with the new configuration');
    return { outcome: 'reloaded' };
  }

  /** Puts the last good configuration back in place for restarts, keeping the refused one for inspection. */
  private async restoreLastGood(refusedText: NginxConfText): Promise<void> {
    await writeFile(this.layout.rejectedConfigFile, refusedText, { mode: 0o600 });
    await this.replaceByLink(this.layout.lastGoodConfigFile, this.layout.configFile);
  }

  private rejected(nginxError: string, refusedText: NginxConfText): ApplyResult {
    // nginx names the file it loaded, which is now the last good one again; the refused text is the rejected file.
    const error = nginxError.replaceAll(this.layout.configFile, this.layout.rejectedConfigFile);
    this.logger.warn({ error, file: this.layout.rejectedConfigFile }, 'nginx rejected the configuration');
    const line = refusedLine(error, this.layout.rejectedConfigFile, textOf(refusedText));
    return line === undefined ? { outcome: 'rejected', error } : { outcome: 'rejected', error, line };
  }

  /** Records a master that serves `configText` (the configuration file's) and watches for its death. */
  private async adopt(master: MasterProcess, configText: NginxConfText): Promise<void> {
    this.watch(master);
    await this.runs(configText);
  }

  private watch(master: MasterProcess): void {
    this.master = master;
    void master.exited.then((exit) => this.onMasterExit(master, exit));
  }

  /** The master runs `configText`, which `configFile` holds: it becomes the last good one. */
  private async runs(configText: NginxConfText): Promise<void> {
    this.runningDigest = this.lastGoodDigest = digestOf(configText);
    await this.replaceByLink(this.layout.configFile, this.layout.lastGoodConfigFile);
  }

  /** `to` becomes a hard link of `from` (renamed into place: never missing, never half written), through the candidate's name. */
  private async replaceByLink(from: string, to: string): Promise<void> {
    await rm(this.layout.candidateConfigFile, { force: true });
    await link(from, this.layout.candidateConfigFile);
    await rename(this.layout.candidateConfigFile, to);
  }

  private onMasterExit(master: MasterProcess, exit: ProcessExit): void {
    if (!this.wanted) return; // stop() ends it
    this.master = undefined;
    this.runningDigest = undefined;
    // Workers outlive a master that was killed; they would hold its ports.
    master.killGroup();
    // A master that ran a while gets its first quick retry back.
    const ranLong = Date.now() - master.startedAt >= this.restartBackoff.maxMs;
    const delayMs = this.scheduleRestart(ranLong ? 1 : this.restartAttempt + 1);
    this.logger.error({ pid: master.pid, exit, restartInMs: Math.round(delayMs) }, `nginx ${describeExit(exit)}; restarting it`);
    this.onMasterExitHook?.();
  }

  private scheduleRestart(attempt: number): number {
    this.restartAttempt = attempt;
    const delayMs = backoffDelay(attempt, this.restartBackoff);
    this.restartTimer = setTimeout(() => void this.serialize(() => this.restart()), delayMs);
    return delayMs;
  }

  private async restart(): Promise<void> {
    if (!this.wanted || this.master !== undefined) return; // stopped, or started by apply() meanwhile
    try {
      await this.replaceByLink(this.layout.lastGoodConfigFile, this.layout.configFile);
      this.watch(await launchMaster(this.binary, this.layout, this.controlLog, this.timeouts.startMs));
      this.runningDigest = this.lastGoodDigest;
    } catch (error) {
      const delayMs = this.scheduleRestart(this.restartAttempt + 1);
      this.logger.error({ err: error, restartInMs: Math.round(delayMs) }, 'restarting nginx failed');
      return;
    }
    this.restartCount++;
    this.logger.info({ pid: this.masterPid, restarts: this.restartCount }, 'nginx restarted');
  }

  /**
   * A method of its own: a timer's function created in start() would keep start()'s scope, and with it the
   * first configuration's text (13 MiB at 10,000 Ingresses), for as long as nginx runs.
   */
  private startTrimming(): void {
    this.trimTimer = setInterval(() => this.trimControlLog(), CONTROL_LOG_TRIM_INTERVAL_MS).unref();
  }

  private trimControlLog(): void {
    this.serialize(() => this.controlLog.trim(CONTROL_LOG_MAX_BYTES)).catch((error: unknown) =>
      this.logger.warn({ err: error, file: this.layout.controlLog }, 'trimming the nginx control log failed'),
    );
  }

  private serialize<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** A digest of the text as nginx reads it (a string's UTF-8 bytes hash as those bytes). */
function digestOf(configText: NginxConfText): string {
  return hash('sha256', configText, 'base64');
}

/** The text of a refused configuration, for the one failure refusedLine finds in the text (rare: not on the load path). */
function textOf(configText: NginxConfText): string {
  return typeof configText === 'string'
    ? configText
    : Buffer.from(configText.buffer, configText.byteOffset, configText.byteLength).toString();
}
