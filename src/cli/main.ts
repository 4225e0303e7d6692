// The `portico` process: parse ingress-nginx's flags, fill the store from a
// cluster (or from --manifests), and keep nginx serving what the store says
// until SIGTERM/SIGINT.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncLoop } from '../controller/syncLoop.js';
import { NginxDataPlane } from '../dataplane/nginxDataPlane.js';
import { availableGeoip2Databases } from '../dataplane/nginx/geoip2Databases.js';
import { chosenLuaModule } from '../dataplane/nginx/luaModule.js';
import { startHealthServer } from '../health/healthServer.js';
import { startProfilerServer } from '../profiling/profilerServer.js';
import { GEOIP_DIRECTORY, maxmindEditionFiles } from '../dataplane/nginx/maxmindDatabases.js';
import { controllerZone } from '../kube/controllerZone.js';
import { controllerIdentity } from '../kube/controllerIdentity.js';
import { createLogger } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheusMetrics.js';
import { StatusReporter } from '../status/statusReporter.js';
import { Store } from '../store/store.js';
import { CommandLineError, parseCommandLine } from './commandLine.js';
import { openSource } from './openSource.js';
import { endpointPolicyFromFlags } from './endpointPolicyFromFlags.js';
import { Shutdown } from './shutdown.js';
import { StartPhases } from './startPhases.js';
import { storeSettingsFromFlags } from './storeSettingsFromFlags.js';
import { PORTICO_VERSION } from './version.js';

// Events still unwritten at exit get this long (the API server may be gone).
const EVENT_FLUSH_TIMEOUT_MS = 5_000;

async function run(argv: readonly string[]): Promise<number> {
  const phases = new StartPhases();
  phases.end('moduleLoad');
  // `portico check` reads a cluster: its modules load only for it.
  if (argv[0] === 'check') return (await import('../check/runCheck.js')).runCheck(argv.slice(1));
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (error instanceof CommandLineError) {
      process.stderr.write(`portico: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
  if (parsed.kind === 'exit') {
    process.stdout.write(parsed.output);
    return parsed.exitCode;
  }
  const { flags } = parsed;
  const logger = createLogger(flags.v);
  logger.info({ version: PORTICO_VERSION, source: flags.manifests ? 'manifests' : 'kubernetes' }, 'starting portico');
  for (const warning of parsed.warnings) logger.warn(warning);
  logger.info(
    { directory: GEOIP_DIRECTORY, ...maxmindEditionFiles(flags.maxmindEditionIds) },
    'GeoIP2 databases on disk (never downloaded)',
  );

  // The same signal again during the shutdown finds no handler and ends the process at once (Ctrl-C twice).
  let signalled = false;
  const signal = Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]).then(() => {
    signalled = true;
  });
  const shutdown = new Shutdown({
    gracePeriodMs: flags.shutdownGracePeriod * 1000,
    postGracePeriodMs: flags.postShutdownGracePeriod * 1000,
    logger,
  });

  const storeSettings = storeSettingsFromFlags(flags);
  const store = new Store(storeSettings);
  const { source, events, cluster, close } = await openSource(flags, store, logger);
  const metrics = await PrometheusMetrics.start({
    enabled: flags.enableMetrics,
    controllerClass: flags.controllerClass,
    metricsPerHost: flags.metricsPerHost,
    metricsPerUndefinedHost: flags.metricsPerUndefinedHost,
    reportStatusClasses: flags.reportStatusClasses,
    exclude: flags.excludeSocketMetrics,
    buckets: { time: flags.timeBuckets, length: flags.lengthBuckets, size: flags.sizeBuckets },
    maxBatchSize: flags.monitorMaxBatchSize,
    statusPort: flags.statusPort,
    logger,
  });
  const status =
    cluster &&
    new StatusReporter({
      client: cluster.client,
      identity: controllerIdentity(process.env, cluster.contextNamespace),
      ingress: (key) => store.ingress(key),
      settings: flags,
      logger,
      onLeadership: (electionId, leading) => metrics.controller?.leading(electionId, leading),
    });
  const topologyZone = flags.enableTopologyAwareRouting && cluster ? await controllerZone(cluster.client, process.env, logger) : undefined;
  const endpoints = endpointPolicyFromFlags(flags, metrics.monitor?.port, topologyZone);
  // The health endpoint starts after the data plane, which tells it at once when nginx dies.
  const healthCheck: { refresh?: () => Promise<void> } = {};
  const dataPlane = new NginxDataPlane({
    prefix: flags.nginxPrefix || join(tmpdir(), `portico-${flags.httpPort}`),
    logger,
    ports: {
      http: flags.httpPort,
      https: flags.httpsPort,
      defaultServer: flags.defaultServerPort,
      status: flags.statusPort,
      sslPassthroughProxy: flags.sslPassthroughProxyPort,
    },
    liveUpdateRetries: flags.dynamicConfigurationRetries,
    monitor: metrics.monitor,
    endpointGuard: endpoints.guard,
    geoip2Databases: availableGeoip2Databases(logger),
    luaModuleFile: chosenLuaModule(logger),
    onNginxExit: () => void healthCheck.refresh?.(),
  });
  const syncLoop = new SyncLoop({
    store,
    dataPlane,
    events,
    logger,
    annotationsPrefix: flags.annotationsPrefix,
    deepInspect: flags.deepInspect,
    configMap: flags.configmap || undefined,
    defaultBackendService: flags.defaultBackendService || undefined,
    defaultSslCertificate: flags.defaultSslCertificate || undefined,
    endpoints,
    streamServices: { tcpConfigMap: flags.tcpServicesConfigmap || undefined, udpConfigMap: flags.udpServicesConfigmap || undefined },
    sslPassthrough: flags.enableSslPassthrough,
    syncRateLimit: flags.syncRateLimit,
    syncEvents: !flags.disableSyncEvents,
    onServed: (ingresses) => status?.setServed(ingresses),
    observer: metrics,
  });
  let synced = false;
  const health = await startHealthServer({
    host: flags.healthzHost,
    port: flags.healthzPort,
    path: flags.healthCheckPath,
    logger,
    metrics: metrics.registry,
    check: async () => synced && !shutdown.started && (await dataPlane.healthy(flags.healthCheckTimeout * 1000)),
  });
  healthCheck.refresh = () => health.refresh();

  const profiler = flags.profiling
    ? await startProfilerServer({ host: flags.profilerAddress, port: flags.profilerPort, logger })
    : undefined;

  const stopSyncing = new AbortController();
  let syncing: Promise<void> = Promise.resolve();
  shutdown.add('stop-work', 'stop syncing', async () => {
    stopSyncing.abort();
    await syncing; // a sync under way finishes
  });
  shutdown.add('stop-work', 'stop watching', () => source.stop());
  // Before nginx quits: the last replica clears the status while it still serves.
  shutdown.add('stop-work', 'release the lease and clear status if last', async () => status?.stop());
  shutdown.add('stop-data-plane', 'quit nginx', () => dataPlane.stop());
  // After nginx: its exiting workers send their last request records.
  shutdown.add('release', 'close the request metrics listener', () => metrics.close());
  shutdown.add('release', 'write pending Events', () => events.flush(EVENT_FLUSH_TIMEOUT_MS));
  shutdown.add('release', 'close connections', async () => {
    store.changes.close();
    await close();
  });
  shutdown.add('release', 'close the health endpoint', () => health.close());
  shutdown.add('release', 'close the profiling endpoint', () => void profiler?.close());
  let webhook: Server | undefined;
  shutdown.add('release', 'close the admission webhook', () => void webhook?.close());

  let failed = false;
  try {
    phases.end('setup');
    dataPlane.prepareStart(); // beside the source's read: it spawns openssl
    await Promise.race([source.start(), signal]);
    if (!signalled) {
      phases.end('source');
      const report = await syncLoop.sync();
      if (report.outcome === 'rejected') throw new Error('nginx did not start with the first configuration (see the log above)');
      phases.end('sync');
      synced = true;
      await health.refresh();
      phases.end('health');
      logger.info(phases.fields({ modelMs: report.modelMs, ...dataPlane.startTimes }), 'start phases');
      logger.info({ served: store.ingresses().length }, 'serving');
      status?.start();
      if (flags.validatingWebhook) {
        // Loaded only when asked for (zod's schemas take a quarter of a second to load).
        const { startAdmissionWebhook } = await import('../admission/admissionWebhook.js');
        webhook = await startAdmissionWebhook({ flags, store, storeSettings, lastInput: () => syncLoop.lastInput, logger });
      }
      syncing = syncLoop.run(stopSyncing.signal);
      await signal;
    }
  } catch (error) {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'portico failed');
    failed = true;
  }
  logger.info('shutting down');
  const shuttingDown = shutdown.run({ graceful: !failed });
  void health.refresh(); // /healthz fails at once (shutdown.ts)
  const clean = await shuttingDown;
  const exitCode = failed || !clean ? 1 : 0;
  logger.info({ code: exitCode }, 'exiting');
  return exitCode;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`portico: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
