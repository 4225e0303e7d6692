/**
 * Issue 17: TCP throughput and connection rate through Portico's stream path
 * (a --tcp-services-configmap entry: the stream server and upstream Portico
 * renders) against a hand-written nginx `stream` proxy to the same backend,
 * one worker each:
 *   node --import tsx bench/streamThroughput.ts [--duration 5] [--rounds 3]
 *
 * The backend is test/support/streamEcho.ts (every byte back on its
 * connection), as its own process. Throughput: 4 long connections, each
 * writing 64 KiB chunks as fast as the proxy takes them and reading the echo,
 * for a fixed time; bytes/s is what came back. Connection rate: 8 loops, each
 * connecting, sending 64 bytes, reading them back and closing, for a fixed
 * time. Portico runs as users run it, in manifest mode (an EndpointSlice
 * names the loopback backend), with `worker-processes: 1`; the hand-written
 * proxy has what a minimal hand-written one has (an upstream, proxy_pass) and
 * logs alike (Portico's stream block has no access log of its own yet: none on either side).
 *
 * Each proxy is pinned to CPU 0; this process (the client) and the backend to
 * CPU 1. On 2 cores the client and the Node backend can be what bounds the
 * figures; the ratio is then nearer 1 than the proxies' own difference.
 * Rounds alternate the order of the proxies; medians are compared.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { prefixLayout, type PrefixLayout } from '../src/dataplane/nginx/process/prefixLayout.js';
import { SERVICE_NAME_LABEL } from '../src/store/store.js';
import { eventually } from '../test/support/eventually.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { startPortico } from '../test/support/porticoProcess.js';
import { tcpRoundTrip } from '../test/support/streamEcho.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { pin, processTree, readPidFile } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';
import { startThrowAwayNginx } from './support/throwAwayNginx.js';

const PROXY_CPU = 0;
const LOAD_CPU = 1;
const THROUGHPUT_CONNECTIONS = 4;
const CHUNK = randomBytes(64 * 1024);
const RATE_LOOPS = 8;
const RATE_PAYLOAD = randomBytes(64);
const STREAM_MODULE = '/usr/share/nginx/modules/ngx_stream_module.so';

interface Proxy {
  readonly name: string;
  readonly port: number;
  masterPid(): Promise<number>;
}

interface Round {
  bytesPerSecond: number;
  connectionsPerSecond: number;
  failures: number;
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(3);
  const cleanups: Array<() => Promise<void>> = [];
  process.stdout.write(`machine: ${describeMachine()}\n\n`);
  try {
    const backend = await startBackend();
    cleanups.push(backend.stop);
    await pin([process.pid], LOAD_CPU);
    await pin([backend.pid], LOAD_CPU);
    const [handWrittenPort = 0, porticoPort = 0] = await freeLoopbackPorts(2);
    const handWritten = await startHandWritten(handWrittenPort, backend.port);
    cleanups.push(handWritten.stop);
    const portico = await startPorticoStream(porticoPort, backend.port);
    cleanups.push(portico.stop);
    const proxies = [handWritten.proxy, portico.proxy];
    const results = new Map<Proxy, Round[]>(proxies.map((proxy) => [proxy, []]));
    for (const proxy of proxies) await measureRound(proxy, 1); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? proxies : [...proxies].reverse();
      for (const proxy of order) {
        const result = await measureRound(proxy, seconds);
        results.get(proxy)!.push(result);
        process.stdout.write(
          `round ${round + 1} ${proxy.name}: ${figure(result.bytesPerSecond / 1e6)} MB/s, ${figure(result.connectionsPerSecond)} connections/s, ${result.failures} failed\n`,
        );
      }
    }
    process.stdout.write(
      `\n${THROUGHPUT_CONNECTIONS} connections streaming 64 KiB chunks, then ${RATE_LOOPS} loops of connect + 64-byte round trip + close, ` +
        `${seconds} s each; proxies on CPU ${PROXY_CPU}, client and backend on CPU ${LOAD_CPU}; median of ${rounds} rounds\n\n`,
    );
    const of = (proxy: Proxy, pick: (round: Round) => number): number => median(results.get(proxy)!.map(pick));
    const row = (proxy: Proxy): string[] => [
      proxy.name,
      figure(of(proxy, (r) => r.bytesPerSecond) / 1e6),
      figure(of(proxy, (r) => r.connectionsPerSecond)),
      figure(results.get(proxy)!.reduce((sum, r) => sum + r.failures, 0)),
    ];
    const ratio = (pick: (round: Round) => number): string => figure(of(portico.proxy, pick) / of(handWritten.proxy, pick), 2);
    printTable(
      ['proxy', 'throughput (MB/s)', 'connections/s', 'failed'],
      [
        row(handWritten.proxy),
        row(portico.proxy),
        ['Portico / hand-written', ratio((r) => r.bytesPerSecond), ratio((r) => r.connectionsPerSecond), ''],
      ],
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

// ---- the backend and the two proxies ----

async function startBackend(): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const script = fileURLToPath(new URL('../test/support/streamEcho.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening .+:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the echo backend exited (${code})`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { port, pid: child.pid!, stop };
}

/** A minimal hand-written stream proxy. */
async function startHandWritten(port: number, backendPort: number): Promise<{ proxy: Proxy; stop: () => Promise<void> }> {
  const conf = (layout: PrefixLayout): string => `load_module ${STREAM_MODULE};
worker_processes 1;
error_log ${layout.errorLog} warn;
events { worker_connections 4096; }
stream {
    upstream backend {
        server 127.0.0.1:${backendPort};
    }
    server {
        listen 127.0.0.1:${port};
        proxy_pass backend;
    }
}
`;
  const { nginx, stop } = await startThrowAwayNginx(conf);
  await eventually(() => tcpRoundTrip({ host: '127.0.0.1', port }, RATE_PAYLOAD), { timeoutMs: 10_000 });
  return { proxy: { name: 'hand-written nginx stream', port, masterPid: async () => requirePid(nginx.masterPid) }, stop };
}

/** Portico in manifest mode with one TCP service on `port` to the backend, once it round-trips. */
async function startPorticoStream(port: number, backendPort: number): Promise<{ proxy: Proxy; stop: () => Promise<void> }> {
  const manifests = await mkdtemp(join(tmpdir(), 'portico-bench-manifests-'));
  const objects = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'portico-bench', namespace: 'default' }, data: { 'worker-processes': '1' } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'tcp-services', namespace: 'default' },
      data: { [port]: 'default/echo:7000' },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' }, spec: { ports: [{ name: 'tcp', port: 7000 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'echo-1', namespace: 'default', labels: { [SERVICE_NAME_LABEL]: 'echo' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'] }],
      ports: [{ name: 'tcp', port: backendPort }],
    },
  ];
  await writeFile(join(manifests, 'bench.yaml'), objects.map((object) => stringify(object)).join('---\n'));
  const removeManifests = (): Promise<void> => rm(manifests, { recursive: true, force: true });
  const portico = await startPortico(
    [`--manifests=${manifests}`, '--configmap=default/portico-bench', '--tcp-services-configmap=default/tcp-services'],
    { readyTimeoutMs: 120_000 },
  ).catch(async (error: unknown) => {
    await removeManifests();
    throw error;
  });
  const stop = async (): Promise<void> => {
    await portico.stop();
    await removeManifests();
  };
  try {
    await eventually(() => tcpRoundTrip({ host: '127.0.0.1', port }, RATE_PAYLOAD), { timeoutMs: 30_000, intervalMs: 100 });
  } catch (error) {
    const tail = portico.logTail(30);
    await stop();
    throw new Error(`Portico does not proxy the TCP service: ${(error as Error).message}\n${tail}`);
  }
  // Read again each round: a reload keeps the master, but the file is the one truth.
  return { proxy: { name: "Portico's stream path", port, masterPid: () => readPidFile(prefixLayout(portico.prefix).pidFile) }, stop };
}

function requirePid(pid: number | undefined): number {
  if (pid === undefined) throw new Error('nginx is not running');
  return pid;
}

// ---- load ----

async function measureRound(proxy: Proxy, seconds: number): Promise<Round> {
  await pin(await processTree(await proxy.masterPid()), PROXY_CPU);
  const bytesPerSecond = await throughput(proxy.port, seconds);
  const rate = await connectionRate(proxy.port, seconds);
  return { bytesPerSecond, connectionsPerSecond: rate.perSecond, failures: rate.failures };
}

/** Bytes per second echoed back over THROUGHPUT_CONNECTIONS connections that write as fast as they may, for `seconds`. */
async function throughput(port: number, seconds: number): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const received = await Promise.all(
    Array.from(
      { length: THROUGHPUT_CONNECTIONS },
      () =>
        new Promise<number>((resolve, reject) => {
          let bytes = 0;
          const socket = connect({ host: '127.0.0.1', port });
          const pump = (): void => {
            while (performance.now() < deadline) if (!socket.write(CHUNK)) return;
            socket.end();
          };
          socket.on('connect', pump);
          socket.on('drain', pump);
          socket.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (performance.now() >= deadline) socket.destroy();
          });
          socket.on('close', () => resolve(bytes));
          socket.on('error', reject);
        }),
    ),
  );
  return received.reduce((sum, bytes) => sum + bytes, 0) / ((performance.now() - started) / 1000);
}

/** Connections per second, each a connect, a 64-byte round trip and a close, RATE_LOOPS at a time, for `seconds`. */
async function connectionRate(port: number, seconds: number): Promise<{ perSecond: number; failures: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: RATE_LOOPS }, async () => {
      while (performance.now() < deadline) {
        try {
          await tcpRoundTrip({ host: '127.0.0.1', port }, RATE_PAYLOAD);
          done++;
        } catch {
          failures++;
        }
      }
    }),
  );
  return { perSecond: done / ((performance.now() - started) / 1000), failures };
}

await main();
