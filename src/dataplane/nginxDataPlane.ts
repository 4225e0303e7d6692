// The data plane as the controller sees it: a Configuration goes in. Its
// structure is rendered to nginx.conf, which is reloaded only when the text
// changed; endpoints and certificates are pushed to nginx's Lua live, so they
// never cause a reload. Knows nginx, not Kubernetes.
import { chooseLuaModule } from './nginx/luaModule.js';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { Logger } from '../log/logger.js';
import { allServerNames } from '../model/hostAliases.js';
import type { EndpointGuard } from '../model/selfAddress.js';
import { MAX_TIMER_MS, nginxTimeMs } from '../model/settings/nginxLimits.js';
import type { Configuration } from '../model/types.js';
import type { ApplyOutcome, ApplyResult, Applying, DataPlane, Refused } from './dataPlane.js';
import { LatestOnlyQueue } from './latestOnlyQueue.js';
import { acrossReload } from './live/acrossReload.js';
import { liveStateOf, type LiveState } from './live/liveState.js';
import { LiveStateClient } from './live/liveStateClient.js';
import { ConfigRefusedError, NginxProcess, prefixLayout } from './nginx/nginxProcess.js';
import { KeepAliveDrain } from './nginx/keepAliveDrain.js';
import { readOpenFilesLimit } from './nginx/openFilesLimit.js';
import { createPrefixDirs } from './nginx/process/prefixLayout.js';
import { pruneSecretFiles, writeSecretFiles } from './nginx/process/secretFiles.js';
import {
  createRenderContext,
  STATUS_ADDRESS,
  type ListenPorts,
  type MonitorTarget,
  type RenderContext,
} from './nginx/render/renderContext.js';
import { originOfLine, type OriginTable, type TracedConfig } from './nginx/render/configOrigins.js';
import { renderTracedNginxConf } from './nginx/render/renderNginxConf.js';
import { ServerTextCache } from './nginx/render/serverTextCache.js';
import { resolveExternalNames } from './resolveExternalNames.js';
import { ensureFakeCertificate } from './tls/fakeCertificate.js';
import { hostHasIpv6 } from './hostIpv6.js';

/** Portico's Lua modules, beside src/ and dist/ alike. */
const LUA_DIR = fileURLToPath(new URL('../../lua/', import.meta.url));

/** How often nginx is asked whether it still holds the live state (a restarted master has lost it). */
const LIVE_STATE_CHECK_MS = 1000;
/** How long nginx processes may outlive worker-shutdown-timeout at a quit before they are killed. */
const STOP_MARGIN_MS = 10_000;

export interface NginxDataPlaneOptions {
  /** The directory Portico's nginx runs in. */
  prefix: string;
  logger: Logger;
  /** The SSL passthrough proxy port may be left out: --ssl-passthrough-proxy-port's default then. */
  ports: Omit<ListenPorts, 'sslPassthroughProxy'> & Partial<Pick<ListenPorts, 'sslPassthroughProxy'>>;
  /** Addresses the public servers bind; empty = bind-address's, or every IPv4 (and IPv6) address. */
  listenAddresses?: readonly string[];
  /** Whether the host has IPv6 (default: hostHasIpv6()). */
  hostHasIpv6?: boolean;
  /** Where access logs go (default: the prefix's logs/access.log). */
  accessLog?: string;
  nginxBinary?: string;
  /** `--dynamic-configuration-retries`. */
  liveUpdateRetries?: number;
  /** Where nginx sends request metrics (--enable-metrics). */
  monitor?: MonitorTarget;
  /** Portico's own addresses and ports: what ExternalName names resolve to is checked against it, and Lua checks every peer again. */
  endpointGuard: EndpointGuard;
  /** The MaxMind databases use-geoip2 reads (geoip2Databases.ts). */
  geoip2Databases?: readonly string[];
  /** The ngx_http_lua_module.so to load (luaModule.ts; default: Portico's build where installed, else Debian's). */
  luaModuleFile?: string;
  /** Told when the nginx master dies (NginxProcessOptions.onMasterExit). */
  onNginxExit?: () => void;
}

/** Where nginx's first start went, ms: the prefix, certificate and render context, the render, the master's start, the live push. */
export interface NginxStartTimes {
  prepareMs: number;
  renderMs: number;
  nginxStartMs: number;
  pushMs: number;
}

export class NginxDataPlane implements DataPlane {
  readonly nginx: NginxProcess;
  readonly live: LiveStateClient;
  /** Set once nginx has started (the start's log line reports it). */
  startTimes: NginxStartTimes | undefined;
  private context: RenderContext | undefined;
  /** The server blocks of the last render: a change rewrites only the servers it touches (serverTextCache.ts). */
  private readonly serverTexts = new ServerTextCache();
  /** The live state nginx should hold (re-sent after a master restart). */
  private wanted: LiveState | undefined;
  /** What the running nginx.conf was rendered from, and its hosts. */
  private running: Configuration | undefined;
  private servedHosts: ReadonlySet<string> = new Set();
  /** The configuration last applied, and whether the live state last pushed held more than it needs. */
  private latest: Configuration | undefined;
  private pushedMore = false;
  /** Configurations to render and load, one at a time, the newest only. */
  private readonly loads = new LatestOnlyQueue<Configuration, ApplyOutcome>((configuration) => this.load(configuration), {
    outcome: 'superseded',
  });
  /** worker-shutdown-timeout of the latest configuration: how long nginx drains at a quit. */
  private drainTime: string | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private checking = false;
  /** The prefix's folders, the open files limit and the fake certificate, from prepareStart() or the start itself. */
  private startFiles: Promise<{ openFilesLimit: number | undefined; fakeCertificate: string }> | undefined;

  constructor(private readonly options: NginxDataPlaneOptions) {
    this.nginx = new NginxProcess({
      prefix: options.prefix,
      logger: options.logger.child({ component: 'nginx' }),
      binary: options.nginxBinary,
      onMasterExit: options.onNginxExit,
      reloadDrain: new KeepAliveDrain(
        prefixLayout(options.prefix).configurationSocket,
        options.logger.child({ component: 'keepalive-drain' }),
      ),
    });
    this.live = new LiveStateClient({
      socketPath: this.nginx.layout.configurationSocket,
      logger: options.logger.child({ component: 'live-state' }),
      retries: options.liveUpdateRetries ?? 15,
    });
  }

  /**
   * The first configuration starts nginx. Later ones push the live state,
   * which resolves the call, then render nginx.conf and reload when its text
   * changed, in `done`. Live state goes first, so new locations find their
   * backends the moment they exist. A configuration that arrives during a
   * reload is pushed at once, and loaded after it (only the newest of those).
   */
  async apply(configuration: Configuration): Promise<Applying> {
    const resolved = await resolveExternalNames(configuration, this.options.endpointGuard, (backend, message) =>
      this.options.logger.warn({ backend }, `${message}; refused`),
    );
    this.drainTime = resolved.settings.workerShutdownTimeout;
    if (!this.context) return { done: Promise.resolve(await this.start(resolved)) };
    this.latest = resolved;
    await this.pushLive();
    return { done: this.loads.submit(resolved) };
  }

  /**
   * Begins what nginx's first start needs whatever the configuration: the
   * fake certificate's RSA key above all, which openssl makes in a process of
   * its own (0.2-0.6 s), so it runs beside the source's first read instead of
   * after the first model. A failure is the first start's.
   */
  prepareStart(): void {
    this.startFiles ??= this.createStartFiles();
    this.startFiles.catch(() => undefined); // reported by start(), which awaits it
  }

  private async createStartFiles(): Promise<{ openFilesLimit: number | undefined; fakeCertificate: string }> {
    const layout = this.nginx.layout;
    const certificate = ensureFakeCertificate(layout.certificateDir); // first: openssl is spawned at once
    const [fakeCertificate, openFilesLimit] = await Promise.all([certificate, createPrefixDirs(layout).then(() => readOpenFilesLimit())]);
    return { openFilesLimit, fakeCertificate };
  }

  /**
   * nginx quits gracefully: it stops accepting, and requests under way finish.
   * nginx itself cuts what is left after worker-shutdown-timeout; Portico
   * kills the processes only if they outlive that by STOP_MARGIN_MS.
   */
  async stop(): Promise<void> {
    clearInterval(this.watchdog);
    const drainMs = this.drainTime === undefined ? undefined : (nginxTimeMs(this.drainTime) ?? MAX_TIMER_MS) + STOP_MARGIN_MS;
    await this.nginx.stop(drainMs);
  }

  /** nginx answers on its status port and holds the live state (ingress-nginx's health check of the data plane). */
  async healthy(timeoutMs: number): Promise<boolean> {
    if (!this.nginx.running || !this.context) return false;
    try {
      // A connection of its own (reset): a kept-alive one may be to a worker the last reload retired,
      // which closes it under the request, and the probe would read 500 for a second.
      const response = await request(`http://${STATUS_ADDRESS}:${this.context.ports.status}/healthz`, {
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        reset: true,
      });
      await response.body.dump();
      return response.statusCode === 200 && (await this.live.initialized(timeoutMs));
    } catch {
      return false;
    }
  }

  /** Starts nginx with the first configuration; one nginx -t refuses is reported like a refused reload (the next apply starts again). */
  private async start(configuration: Configuration): Promise<ApplyOutcome> {
    const marks = [performance.now()];
    const layout = this.nginx.layout;
    this.startFiles ??= this.createStartFiles();
    const { openFilesLimit, fakeCertificate } = await this.startFiles.catch((error: unknown) => {
      this.startFiles = undefined; // the next start tries again
      throw error;
    });
    const context = createRenderContext(layout.prefix, {
      ports: this.options.ports,
      listenAddresses: this.options.listenAddresses,
      hostHasIpv6: this.options.hostHasIpv6 ?? hostHasIpv6(),
      luaDir: LUA_DIR,
      luaModuleFile: this.options.luaModuleFile ?? chooseLuaModule().file,
      monitor: this.options.monitor,
      geoip2Databases: this.options.geoip2Databases,
      selfEndpoints: {
        porticoPorts: this.options.endpointGuard.porticoPorts,
        refuseLoopback: this.options.endpointGuard.refuseLoopbackEverywhere,
      },
      openFilesLimit,
      paths: {
        errorLog: layout.errorLog,
        accessLog: this.options.accessLog ?? layout.accessLog,
        temp: layout.temp,
        fakeCertificate,
        secretFiles: layout.secretFileDir,
        noEndpointsSocket: layout.noEndpointsSocket,
        configurationSocket: layout.configurationSocket,
        passthroughSocket: layout.passthroughSocket,
        passthroughClosedSocket: layout.passthroughClosedSocket,
      },
    });
    await writeSecretFiles(layout.secretFileDir, configuration.secretFiles);
    marks.push(performance.now());
    const rendered = renderTracedNginxConf(configuration, context, this.serverTexts);
    marks.push(performance.now());
    try {
      await this.nginx.start(rendered.config.bytes);
    } catch (error) {
      if (error instanceof ConfigRefusedError) return refused(error.message, error.line, rendered);
      throw error;
    }
    marks.push(performance.now());
    this.context = context;
    this.serving(configuration);
    this.latest = configuration;
    await this.pushLive();
    marks.push(performance.now());
    const [prepareMs = 0, renderMs = 0, nginxStartMs = 0, pushMs = 0] = marks.slice(1).map((at, i) => at - marks[i]!);
    this.startTimes = { prepareMs, renderMs, nginxStartMs, pushMs };
    this.watchdog = setInterval(() => void this.restoreLiveState(), LIVE_STATE_CHECK_MS);
    this.watchdog.unref();
    return { outcome: 'reloaded' };
  }

  /**
   * Renders `configuration` (seconds with thousands of Ingresses: after the
   * live push, and only for what is loaded) and makes it the running
   * nginx.conf, then drops from the live state what only the replaced one needed.
   */
  private async load(configuration: Configuration): Promise<ApplyOutcome> {
    const context = this.context;
    if (context === undefined) throw new Error('nginx is not started');
    const rendered = renderTracedNginxConf(configuration, context, this.serverTexts);
    let result: ApplyResult;
    try {
      await writeSecretFiles(context.paths.secretFiles, configuration.secretFiles);
      result = await this.nginx.apply(rendered.config.bytes);
    } catch (error) {
      return { outcome: 'rejected', error: error instanceof Error ? error.message : String(error) };
    }
    // Refused, the previous nginx.conf keeps serving, with what it needs of the live state.
    if (result.outcome === 'rejected') return refused(result.error, result.line, rendered);
    this.serving(configuration);
    // The replaced nginx.conf's files go: a master restarted after a crash loads this one.
    await pruneSecretFiles(context.paths.secretFiles, [configuration.secretFiles]).catch((error: unknown) =>
      this.options.logger.warn({ err: (error as Error).message }, 'removing secret files no nginx.conf names failed'),
    );
    if (result.outcome === 'reloaded' || this.pushedMore) {
      // A failure leaves more in nginx than needed, never less: reported, not the reload's failure.
      await this.pushLive().catch((error: unknown) =>
        this.options.logger.warn(
          { err: (error as Error).message },
          'dropping what the replaced nginx.conf needed from the live state failed',
        ),
      );
    }
    return result;
  }

  /** What the running nginx.conf was rendered from: its hosts are the ones Lua must not route. */
  private serving(configuration: Configuration): void {
    this.running = configuration;
    this.servedHosts = hostsOf(configuration);
  }

  /**
   * Every nginx.conf that serves or soon may (the running one, the one
   * loading, the newest configuration's) needs its backends and certificates
   * live; the newer one's entries win.
   */
  private async pushLive(): Promise<void> {
    if (this.latest === undefined) return;
    const older = [this.running, this.loads.active].filter((entry) => entry !== undefined);
    const live = [...older, this.latest].reduce((before, after) => acrossReload(before, after));
    this.pushedMore = live !== this.latest;
    this.wanted = liveStateOf(live, this.servedHosts);
    await this.live.push(this.wanted);
  }

  /** A restarted nginx master starts with empty shared memory: push everything again. */
  private async restoreLiveState(): Promise<void> {
    if (this.checking || !this.wanted || !this.nginx.running) return;
    this.checking = true;
    try {
      if (await this.live.initialized()) return;
      this.options.logger.warn('nginx lost its live state (restarted?); pushing it again');
      this.live.forget();
      await this.live.push(this.wanted);
    } catch (error) {
      this.options.logger.error({ err: (error as Error).message }, 'restoring the live state failed');
    } finally {
      this.checking = false;
    }
  }
}

/** nginx's refusal, with the origin of the line it named. */
function refused(error: string, line: number | undefined, rendered: { config: TracedConfig; origins: OriginTable }): Refused {
  const origin = line === undefined ? undefined : originOfLine(rendered.config, rendered.origins, line);
  return origin === undefined ? { outcome: 'rejected', error } : { outcome: 'rejected', error, origin };
}

/** Every name nginx.conf has a server block for: hostnames, aliases and www redirects (those never reach the catch-all's routes). */
function hostsOf(configuration: Configuration): ReadonlySet<string> {
  return new Set(configuration.servers.flatMap(allServerNames));
}
