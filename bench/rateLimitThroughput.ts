/**
 * Issue 14: what `limit-rps` costs a location. Requests per second and nginx CPU
 * per request through the nginx.conf Portico renders for one location with
 * `limit-rps: 1000000` (so high that wrk never reaches it: every request is
 * counted, none refused) beside the same location without it:
 *   node --import tsx bench/rateLimitThroughput.ts [--duration 10] [--rounds 5]
 *
 * Both proxies are Portico's data plane (NginxDataPlane, one worker each,
 * pinned to CPU 0) with the same configuration but for the annotation, parsed
 * as the model parses it. The backend is an nginx answering `return 200`, on
 * CPU 1 with the load: wrk (Debian package), one thread, 32 keep-alive
 * connections from 127.0.0.1, so every request of the limited proxy has the
 * same key and updates the same node of the zone, the busiest case. A round
 * with any non-2xx answer fails the benchmark (the limit refused something:
 * it would measure refusals, not the check). Rounds alternate the order;
 * medians are compared.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import { NginxProcess } from '../src/dataplane/nginx/nginxProcess.js';
import type { PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { silentLogger } from '../src/log/logger.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import type { Configuration } from '../src/model/types.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { httpGet } from '../test/support/httpGet.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { runWrk } from './support/wrk.js';

const HOST = 'bench.local';
const BACKEND = 'bench-web-80';
const PROXY_CPU = 0;
const LOAD_CPU = 1;
const CONNECTIONS = 32;
const PREFIX = 'nginx.ingress.kubernetes.io';
const LIMIT_RPS = '1000000';

function configuration(backendPort: number, annotations: Record<string, string>): Configuration {
  const settings = { ...DEFAULT_SETTINGS, workerProcesses: 1 as const };
  const parsed = parseIngressAnnotations(annotations, { prefix: PREFIX, settings });
  if (!parsed.ok) throw new Error(`the benchmark's annotations are refused: ${parsed.errors.join('; ')}`);
  const location = parsed.value.location;
  const plain = parseIngressAnnotations({}, { prefix: PREFIX, settings });
  if (!plain.ok) throw new Error('the defaults are refused');
  return {
    servers: [
      {
        hostname: '_',
        certificate: undefined,
        tls: false,
        locations: [{ path: '/', match: 'prefix', backend: undefined, ingress: undefined, annotations: plain.value.location }],
      },
      {
        hostname: HOST,
        certificate: undefined,
        tls: false,
        locations: [{ path: '/', match: 'prefix', backend: BACKEND, ingress: { namespace: 'bench', name: 'web' }, annotations: location }],
      },
    ],
    backends: [
      {
        name: BACKEND,
        service: { namespace: 'bench', name: 'web', port: 80 },
        endpoints: [{ address: '127.0.0.1', port: backendPort }],
        balancing: { algorithm: 'round_robin', hashBy: undefined, affinity: undefined },
        canary: undefined,
      },
    ],
    certificates: [],
    secretFiles: [],
    defaultCertificate: undefined,
    defaultBackend: undefined,
    settings,
  };
}

/** A fixed 200, kept alive for as long as the proxies keep their connections. */
function backendConf(layout: PrefixLayout, port: number): string {
  return `worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path ${layout.temp.clientBody};
    proxy_temp_path ${layout.temp.proxy};
    fastcgi_temp_path ${layout.temp.fastcgi};
    uwsgi_temp_path ${layout.temp.uwsgi};
    scgi_temp_path ${layout.temp.scgi};
    server {
        listen 127.0.0.1:${port};
        location / { return 200 "ok\\n"; }
    }
}
`;
}

interface Proxy {
  readonly name: string;
  readonly dataPlane: NginxDataPlane;
  readonly port: number;
}

interface Round {
  requestsPerSecond: number;
  nginxMicrosecondsPerRequest: number;
}

async function measure(proxy: Proxy, seconds: number): Promise<Round> {
  const pid = proxy.dataPlane.nginx.masterPid;
  if (pid === undefined) throw new Error(`${proxy.name}: nginx is not running`);
  const tree = await processTree(pid);
  await pin(tree, PROXY_CPU);
  const ticks = await cpuTicks(tree);
  const started = performance.now();
  const { requests } = await runWrk({ port: proxy.port, host: HOST, seconds, connections: CONNECTIONS, cpu: LOAD_CPU });
  const elapsed = (performance.now() - started) / 1000;
  const nginxSeconds = cpuSecondsBetween(ticks, await cpuTicks(tree)).total;
  return { requestsPerSecond: requests / elapsed, nginxMicrosecondsPerRequest: (nginxSeconds * 1e6) / requests };
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(5);
  if (availableParallelism() < 2) throw new Error('this benchmark pins nginx and the load to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n`);

  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-limits-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefixes below it
  const stops: (() => Promise<void>)[] = [];
  try {
    const ports = await freeLoopbackPorts(9);
    const backendPort = ports[8]!;
    const backend = new NginxProcess({ prefix: join(dir, 'backend'), logger: silentLogger() });
    stops.push(() => backend.stop());
    await backend.start(backendConf(backend.layout, backendPort));
    await pin(await processTree(backend.masterPid!), LOAD_CPU);

    const dataPlane = (name: string, offset: number): NginxDataPlane => {
      const [http = 0, https = 0, defaultServer = 0, status = 0] = ports.slice(offset, offset + 4);
      const plane = new NginxDataPlane({
        prefix: join(dir, name),
        logger: silentLogger(),
        ports: { http, https, defaultServer, status },
        listenAddresses: ['127.0.0.1'],
        endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
      });
      stops.push(() => plane.stop());
      return plane;
    };
    const plain: Proxy = { name: 'without limits', dataPlane: dataPlane('plain', 0), port: ports[0]! };
    const limited: Proxy = { name: `limit-rps: ${LIMIT_RPS}`, dataPlane: dataPlane('limited', 4), port: ports[4]! };
    const proxies = [plain, limited];
    const annotations = new Map<Proxy, Record<string, string>>([
      [plain, {}],
      [limited, { [`${PREFIX}/limit-rps`]: LIMIT_RPS }],
    ]);
    for (const proxy of proxies) {
      const result = await (await proxy.dataPlane.apply(configuration(backendPort, annotations.get(proxy) ?? {}))).done;
      if (result.outcome === 'superseded') throw new Error(`${proxy.name}: the first configuration cannot be superseded`);
      const limits = (await readFile(proxy.dataPlane.nginx.layout.configFile, 'utf8')).includes('limit_req ');
      if (limits !== (proxy === limited)) throw new Error(`${proxy.name}: limit_req ${limits ? 'rendered' : 'missing'}`);
      const probe = await httpGet({ port: proxy.port, host: HOST, path: '/' });
      if (probe.status !== 200) throw new Error(`${proxy.name}: expected the backend's 200, got ${probe.status}`);
      await measure(proxy, 2); // warm-up
    }

    const results = new Map<Proxy, Round[]>(proxies.map((proxy) => [proxy, []]));
    for (let round = 0; round < rounds; round++) {
      for (const proxy of round % 2 === 0 ? proxies : [...proxies].reverse()) {
        const result = await measure(proxy, seconds);
        results.get(proxy)!.push(result);
        process.stderr.write(
          `round ${round + 1} ${proxy.name}: ${figure(result.requestsPerSecond)} req/s, nginx ${figure(result.nginxMicrosecondsPerRequest, 1)} µs/req\n`,
        );
      }
    }
    const medianOf = (proxy: Proxy, key: keyof Round): number => median(results.get(proxy)!.map((result) => result[key]));
    process.stdout.write(
      `\nwrk -t1 -c${CONNECTIONS} -d${seconds}s and the backend on CPU ${LOAD_CPU}; each proxy one worker on CPU ${PROXY_CPU}; ` +
        `median of ${rounds} rounds\n\n`,
    );
    printTable(
      ['location', 'requests/s', 'nginx CPU µs/request'],
      [
        ...proxies.map((proxy) => [
          proxy.name,
          figure(medianOf(proxy, 'requestsPerSecond')),
          figure(medianOf(proxy, 'nginxMicrosecondsPerRequest'), 1),
        ]),
        [
          'limited / without',
          figure(medianOf(limited, 'requestsPerSecond') / medianOf(plain, 'requestsPerSecond'), 3),
          figure(medianOf(limited, 'nginxMicrosecondsPerRequest') / medianOf(plain, 'nginxMicrosecondsPerRequest'), 3),
        ],
      ],
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

await main();
