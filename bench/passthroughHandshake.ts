/**
 * Issue 17: what SSL passthrough costs a TLS connection. Full TLS handshakes
 * plus one HTTP round trip per second, and nginx CPU per connection:
 *   - to a passthrough host through Portico's stream block (ssl_preread on the
 *     HTTPS port, the internal passthrough server, the backend), beside the same
 *     connections straight to the backend: the passthrough path's cost;
 *   - to a normal TLS host that nginx terminates (certificate pushed to Lua,
 *     answered by nginx itself), with --enable-ssl-passthrough off and on: the
 *     cost of the hop (stream server, PROXY header, 127.0.0.1:proxy port) every
 *     terminated host pays once passthrough is enabled.
 *   node --import tsx bench/passthroughHandshake.ts [--duration 10] [--rounds 3]
 *
 * The proxy is Portico's data plane (NginxDataPlane, one worker, pinned to CPU
 * 0), configured as the model builds it. The backend terminating its own TLS
 * is the test echo server (tools/echo/echoServer.ts) in a network namespace,
 * not pinned, like the client (this process): 16 connections at a time, each a
 * new TLS session (no resumption, TLS 1.3, RSA 2048 certificates), one
 * `GET /` and its whole answer, then closed. Rounds alternate the order of the
 * variants (and reload nginx between passthrough off and on); medians are compared.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Socket } from 'node:net';
import { connect } from 'node:tls';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../src/log/logger.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import { NO_STREAM } from '../src/model/stream/streamTypes.js';
import type { Certificate, Configuration, Server } from '../src/model/types.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { createTestNetwork, type TestNetwork } from '../test/support/testNetwork.js';
import { selfSignedCertificate } from '../test/support/tlsSecrets.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
const PROXY_CPU = 0;
const CONCURRENCY = 16;
/** A bound on the connections of one measurement, whatever its duration. */
const MAX_CONNECTIONS = 1_000_000;
const PASSTHROUGH_HOST = 'vault.bench.local';
const TERMINATED_HOST = 'web.bench.local';

interface Target {
  readonly address: string;
  readonly port: number;
  readonly servername: string;
}

interface Round {
  connectionsPerSecond: number;
  /** undefined for the direct connections, which nginx does not see. */
  nginxMicrosecondsPerConnection: number | undefined;
}

/** One full TLS handshake, `GET /`, the whole answer; resolves with the answer's status. */
function exchange(target: Target): Promise<number> {
  return new Promise((resolve, reject) => {
    const tcp = new Socket();
    tcp.connect({ host: target.address, port: target.port });
    const socket = connect({ socket: tcp, servername: target.servername, rejectUnauthorized: false });
    socket.setTimeout(5000, () => socket.destroy(new Error(`exchange with ${target.servername} timed out`)));
    const chunks: Buffer[] = [];
    socket.once('secureConnect', () => socket.write(`GET / HTTP/1.1\r\nHost: ${target.servername}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      socket.destroy();
      resolve(Number(Buffer.concat(chunks).toString('latin1').split(' ')[1]));
    });
  });
}

async function measure(target: Target, nginxPids: readonly number[] | undefined, seconds: number): Promise<Round> {
  const ticks = nginxPids && (await cpuTicks(nginxPids));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let connections = 0;
  const loop = async () => {
    while (performance.now() < deadline && connections < MAX_CONNECTIONS) {
      await exchange(target);
      connections++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const nginxSeconds = nginxPids && ticks ? cpuSecondsBetween(ticks, await cpuTicks(nginxPids)).total : undefined;
  return {
    connectionsPerSecond: connections / elapsed,
    nginxMicrosecondsPerConnection: nginxSeconds === undefined ? undefined : (nginxSeconds * 1e6) / connections,
  };
}

function defaultAnnotations(): Server['locations'][number]['annotations'] {
  const parsed = parseIngressAnnotations(undefined, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
  if (!parsed.ok) throw new Error('no annotations are refused');
  return parsed.value.location;
}

/** The catch-all, the terminated host (answered by nginx itself: the TLS is what is measured) and, with passthrough, its host. */
function configurationFor(passthrough: boolean, certificate: Certificate, backend: { address: string; port: number }): Configuration {
  const annotations = defaultAnnotations();
  const ingress = { namespace: 'bench', name: 'bench' };
  const host = (hostname: string, tls: boolean): Server => ({
    hostname,
    certificate: tls ? certificate.id : undefined,
    tls,
    locations: [{ path: '/', match: 'prefix', backend: undefined, ingress: hostname === '_' ? undefined : ingress, annotations }],
  });
  return {
    servers: [host('_', false), host(PASSTHROUGH_HOST, false), host(TERMINATED_HOST, true)],
    backends: [],
    certificates: [certificate],
    secretFiles: [],
    defaultCertificate: undefined,
    defaultBackend: undefined,
    settings: { ...DEFAULT_SETTINGS, workerProcesses: 1 },
    stream: passthrough
      ? {
          ...NO_STREAM,
          sslPassthrough: true,
          passthroughHosts: [{ hostname: PASSTHROUGH_HOST, upstreamName: 'passthrough-bench', endpoints: [backend], ingress }],
        }
      : NO_STREAM,
  };
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(3);
  if (availableParallelism() < 2) throw new Error('this benchmark pins nginx and the client to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n`);

  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-passthrough-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  let plane: NginxDataPlane | undefined;
  let network: TestNetwork | undefined;
  try {
    const [http = 0, https = 0, defaultServer = 0, status = 0, sslPassthroughProxy = 0] = await freeLoopbackPorts(5);
    const pem = await selfSignedCertificate([PASSTHROUGH_HOST, TERMINATED_HOST]);
    await writeFile(join(dir, 'tls.crt'), pem.certificatePem);
    await writeFile(join(dir, 'tls.key'), pem.keyPem, { mode: 0o600 });
    network = await createTestNetwork();
    const echo = await network.startEcho({
      service: 'vault',
      instance: 'vault-1',
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
    });
    const certificate: Certificate = {
      id: 'bench',
      secret: 'bench/tls',
      certificatePem: pem.certificatePem,
      keyPem: pem.keyPem,
      hosts: [PASSTHROUGH_HOST, TERMINATED_HOST],
      notAfter: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const ports = { http, https, defaultServer, status, sslPassthroughProxy };
    plane = new NginxDataPlane({
      prefix: join(dir, 'proxy'),
      logger: silentLogger(),
      ports,
      listenAddresses: ['127.0.0.1'],
      endpointGuard: { porticoPorts: Object.values(ports), interfaceAddresses: [], refuseLoopbackEverywhere: false },
    });
    const backend = { address: echo.address, port: echo.port };
    const portico = (servername: string): Target => ({ address: '127.0.0.1', port: https, servername });
    const applied = async (passthrough: boolean): Promise<number[]> => {
      const result = await (await plane!.apply(configurationFor(passthrough, certificate, backend))).done;
      if (result.outcome !== 'reloaded' && result.outcome !== 'unchanged')
        throw new Error(`nginx did not run the configuration: ${JSON.stringify(result)}`);
      const rendered = await readFile(plane!.nginx.layout.configFile, 'utf8');
      if (rendered.includes('ssl_preread on') !== passthrough) throw new Error(`passthrough ${passthrough} is not what nginx runs`);
      const pids = await processTree(plane!.nginx.masterPid!);
      await pin(pids, PROXY_CPU);
      // The old workers have gone once only the new ones answer: wait for them (bounded) by a few connections.
      for (let i = 0; i < 50; i++) await exchange(portico(TERMINATED_HOST));
      return processTree(plane!.nginx.masterPid!);
    };

    type Name = 'passthrough' | 'direct' | 'terminated, passthrough off' | 'terminated, passthrough on';
    const results = new Map<Name, Round[]>();
    const record = (name: Name, round: Round): void => {
      results.set(name, [...(results.get(name) ?? []), round]);
      const cpu = round.nginxMicrosecondsPerConnection;
      process.stderr.write(
        `${name}: ${figure(round.connectionsPerSecond)} connections/s` +
          (cpu === undefined ? '\n' : `, nginx ${figure(cpu, 1)} µs/connection\n`),
      );
    };
    const check = async (target: Target, expected: number): Promise<void> => {
      const answer = await exchange(target);
      if (answer !== expected)
        throw new Error(`${target.servername} at ${target.address}:${target.port} answered ${answer}, not ${expected}`);
    };
    for (let round = 0; round < rounds; round++) {
      process.stderr.write(`round ${round + 1}\n`);
      for (const passthrough of round % 2 === 0 ? [false, true] : [true, false]) {
        const pids = await applied(passthrough);
        await check(portico(TERMINATED_HOST), 404);
        if (!passthrough) {
          record('terminated, passthrough off', await measure(portico(TERMINATED_HOST), pids, seconds));
          continue;
        }
        const direct: Target = { address: echo.address, port: echo.port, servername: PASSTHROUGH_HOST };
        await check(portico(PASSTHROUGH_HOST), 200);
        await check(direct, 200);
        record('terminated, passthrough on', await measure(portico(TERMINATED_HOST), pids, seconds));
        record('passthrough', await measure(portico(PASSTHROUGH_HOST), pids, seconds));
        record('direct', await measure(direct, undefined, seconds));
      }
    }

    const rate = (name: Name): number => median(results.get(name)!.map((round) => round.connectionsPerSecond));
    const cpu = (name: Name): number | undefined => {
      const values = results.get(name)!.map((round) => round.nginxMicrosecondsPerConnection);
      return values.every((value) => value !== undefined) ? median(values) : undefined;
    };
    const cpuText = (name: Name): string => {
      const value = cpu(name);
      return value === undefined ? '–' : figure(value, 1);
    };
    process.stdout.write(
      `\n${CONCURRENCY} concurrent connections, each a full TLS handshake (no resumption) and one GET, for ${seconds}s; ` +
        `one nginx worker on CPU ${PROXY_CPU}; median of ${rounds} rounds\n\n`,
    );
    const names: Name[] = ['passthrough', 'direct', 'terminated, passthrough off', 'terminated, passthrough on'];
    printTable(
      ['connections to', 'connections/s', 'nginx CPU µs/connection'],
      [
        ...names.map((name) => [name, figure(rate(name)), cpuText(name)]),
        ['passthrough / direct', figure(rate('passthrough') / rate('direct'), 3), '–'],
        [
          'terminated: on / off',
          figure(rate('terminated, passthrough on') / rate('terminated, passthrough off'), 3),
          figure(cpu('terminated, passthrough on')! / cpu('terminated, passthrough off')!, 3),
        ],
      ],
    );
  } finally {
    await plane?.stop();
    await network?.destroy();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

await main();
