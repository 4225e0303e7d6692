// The `portico` process: parse ingress-nginx's flags, fill the store from a
// cluster (or from --manifests), and run until SIGTERM/SIGINT.
import { once } from 'node:events';
import { KubeHttpClient } from '../kube/kubeHttpClient.js';
import { loadKubeConfig } from '../kube/loadKubeConfig.js';
import { createLogger, type Logger } from '../log/logger.js';
import { KubernetesSource } from '../sources/kubernetes/kubernetesSource.js';
import { ManifestSource } from '../sources/manifests/manifestSource.js';
import { KINDS } from '../kube/objects.js';
import { Store } from '../store/store.js';
import { CommandLineError, parseCommandLine } from './commandLine.js';
import type { Flags } from './flags.js';
import { storeSettingsFromFlags } from './storeSettingsFromFlags.js';
import { PORTICO_VERSION } from './version.js';

interface Source {
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function openSource(flags: Flags, store: Store, logger: Logger): Promise<{ source: Source; close(): Promise<void> }> {
  if (flags.manifests) {
    const sinks = Object.fromEntries(KINDS.map((kind) => [kind, store.sink(kind)]));
    const source = new ManifestSource({ dir: flags.manifests, sinks, logger: logger.child({ source: 'manifests' }) });
    return { source, close: async () => {} };
  }
  const client = await KubeHttpClient.fromKubeConfig(
    loadKubeConfig({ kubeconfig: flags.kubeconfig, apiserverHost: flags.apiserverHost }),
  );
  logger.info({ server: client.server }, 'connecting to the API server');
  const source = new KubernetesSource({
    client,
    store,
    logger,
    watchNamespace: flags.watchNamespace,
    watchNamespaceSelector: flags.watchNamespaceSelector,
  });
  return { source, close: () => client.close() };
}

function storeCounts(store: Store): Record<string, number> {
  return Object.fromEntries(KINDS.map((kind) => [kind, store.all(kind).length]));
}

/** Reports coalesced store changes; the sync loop that turns them into nginx configuration replaces this. */
async function reportChanges(store: Store, logger: Logger, stopped: AbortSignal): Promise<void> {
  while (!stopped.aborted) {
    const keys = await store.changes.next();
    logger.info({ changed: keys.size, keys: [...keys].slice(0, 20), served: store.ingresses().length }, 'store changed');
  }
}

async function run(argv: readonly string[]): Promise<number> {
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

  const store = new Store(storeSettingsFromFlags(flags));
  const { source, close } = await openSource(flags, store, logger);
  const stopped = new AbortController();
  const signal = Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]).then(() => stopped.abort());
  await Promise.race([source.start(), signal]);
  if (!stopped.signal.aborted) {
    logger.info({ objects: storeCounts(store), served: store.ingresses().length }, 'store loaded');
    void reportChanges(store, logger, stopped.signal);
  }
  await signal;
  logger.info('shutting down');
  await source.stop();
  store.changes.close();
  await close();
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`portico: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
