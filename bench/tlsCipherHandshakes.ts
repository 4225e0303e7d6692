/**
 * Issue 15: what a host's own `ssl-ciphers` costs its TLS handshakes. Full
 * TLS 1.2 handshakes per second and nginx CPU per handshake to a host with
 * `ssl-ciphers` (and `ssl-prefer-server-ciphers`) beside a host without them,
 * on the same listener of the same nginx:
 *   node --import tsx bench/tlsCipherHandshakes.ts [--duration 10] [--rounds 5]
 *
 * The proxy is Portico's data plane (NginxDataPlane, one worker, pinned to
 * CPU 0), both hosts' certificates pushed to its Lua (ssl_certificate_by_lua),
 * as Portico serves them. Both handshakes agree on the same cipher
 * (ECDHE-RSA-AES128-GCM-SHA256, RSA 2048 certificates): only the host's cipher
 * list differs (its server block's, which nginx switches to by SNI). The
 * client is this process (not pinned): 16 connections at a time, each a new
 * TLS session (no resumption), closed after the handshake. nginx's CPU per
 * handshake is the steadier figure: the client shares the machine. Rounds alternate the
 * order; medians are compared.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { NginxDataPlane } from '../src/dataplane/nginxDataPlane.js';
import { silentLogger } from '../src/log/logger.js';
import { parseIngressAnnotations } from '../src/model/annotations/parseIngressAnnotations.js';
import { DEFAULT_SETTINGS } from '../src/model/settings/globalSettings.js';
import type { Configuration, Location, Server } from '../src/model/types.js';
import { freeLoopbackPorts } from '../test/support/freePort.js';
import { selfSignedCertificate } from '../test/support/tlsSecrets.js';
import { describeMachine } from './support/machine.js';
import { roundOptions } from './support/options.js';
import { cpuSecondsBetween, cpuTicks, pin, processTree } from './support/processCpu.js';
import { median } from './support/statistics.js';
import { figure, printTable } from './support/table.js';

const PREFIX = 'nginx.ingress.kubernetes.io';
const PROXY_CPU = 0;
const CONCURRENCY = 16;
/** A bound on the handshakes of one measurement, whatever its duration. */
const MAX_HANDSHAKES = 1_000_000;
const NEGOTIATED = 'ECDHE-RSA-AES128-GCM-SHA256';
const OWN_CIPHERS = `${NEGOTIATED}:ECDHE-RSA-AES256-GCM-SHA384`;

interface Variant {
  readonly name: string;
  readonly host: string;
  readonly annotations: Readonly<Record<string, string>>;
}

const VARIANTS: readonly Variant[] = [
  { name: 'without ssl-ciphers', host: 'plain.bench.local', annotations: {} },
  {
    name: 'with ssl-ciphers, ssl-prefer-server-ciphers',
    host: 'ciphers.bench.local',
    annotations: { 'ssl-ciphers': OWN_CIPHERS, 'ssl-prefer-server-ciphers': 'true' },
  },
];

function locationFor(annotations: Readonly<Record<string, string>>): Location['annotations'] {
  const prefixed = Object.fromEntries(Object.entries(annotations).map(([name, value]) => [`${PREFIX}/${name}`, value]));
  const parsed = parseIngressAnnotations(prefixed, { prefix: PREFIX, settings: DEFAULT_SETTINGS });
  if (!parsed.ok) throw new Error(`the benchmark's annotations are refused: ${parsed.errors.join('; ')}`);
  return parsed.value.location;
}

/** A TLS host answering 404 from nginx itself (no backend: the handshake is what is measured), as the model would build it. */
function server(variant: Variant, certificate: string): Server {
  const annotations = locationFor(variant.annotations);
  const ingress = { namespace: 'bench', name: variant.host };
  const wanted = annotations.tlsCiphers;
  return {
    hostname: variant.host,
    certificate,
    tls: true,
    locations: [{ path: '/', match: 'prefix', backend: undefined, ingress, annotations }],
    ...(wanted && {
      tlsCiphers: {
        ...(wanted.ciphers && { ciphers: { list: wanted.ciphers.list, ingress } }),
        ...(wanted.preferServerCiphers !== undefined && { preferServerCiphers: { prefer: wanted.preferServerCiphers, ingress } }),
      },
    }),
  };
}

/** One full TLS 1.2 handshake; resolves with the cipher agreed on. */
function handshake(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ciphers: NEGOTIATED, maxVersion: 'TLSv1.2', rejectUnauthorized: false });
    socket.setTimeout(5000, () => socket.destroy(new Error(`handshake with ${servername} timed out`)));
    socket.once('secureConnect', () => {
      const cipher = socket.getCipher().name;
      socket.destroy();
      resolve(cipher);
    });
    socket.once('error', reject);
  });
}

interface Round {
  handshakesPerSecond: number;
  nginxMicrosecondsPerHandshake: number;
}

async function measure(port: number, nginxPids: readonly number[], host: string, seconds: number): Promise<Round> {
  const ticks = await cpuTicks(nginxPids);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let handshakes = 0;
  const loop = async () => {
    while (performance.now() < deadline && handshakes < MAX_HANDSHAKES) {
      await handshake(port, host);
      handshakes++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const nginxSeconds = cpuSecondsBetween(ticks, await cpuTicks(nginxPids)).total;
  return { handshakesPerSecond: handshakes / elapsed, nginxMicrosecondsPerHandshake: (nginxSeconds * 1e6) / handshakes };
}

async function main(): Promise<void> {
  const { seconds, rounds } = roundOptions(5);
  if (availableParallelism() < 2) throw new Error('this benchmark pins nginx and the client to different CPUs: it needs 2');
  process.stdout.write(`machine before: ${describeMachine()}\n`);

  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-ciphers-'));
  await chmod(dir, 0o755); // nginx's workers (nobody) reach the prefix below it
  let plane: NginxDataPlane | undefined;
  try {
    const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
    plane = new NginxDataPlane({
      prefix: join(dir, 'proxy'),
      logger: silentLogger(),
      ports: { http, https, defaultServer, status },
      listenAddresses: ['127.0.0.1'],
      endpointGuard: { porticoPorts: [http, https, defaultServer, status], interfaceAddresses: [], refuseLoopbackEverywhere: false },
    });
    const pem = await selfSignedCertificate(VARIANTS.map((variant) => variant.host) as [string, ...string[]]);
    const certificate = {
      id: 'bench',
      secret: 'bench/tls',
      certificatePem: pem.certificatePem,
      keyPem: pem.keyPem,
      hosts: VARIANTS.map((variant) => variant.host),
      notAfter: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const catchAll: Server = {
      hostname: '_',
      certificate: undefined,
      tls: false,
      locations: [{ path: '/', match: 'prefix', backend: undefined, ingress: undefined, annotations: locationFor({}) }],
    };
    const configuration: Configuration = {
      servers: [catchAll, ...VARIANTS.map((variant) => server(variant, certificate.id))].sort((a, b) =>
        a.hostname === '_' ? -1 : b.hostname === '_' ? 1 : a.hostname.localeCompare(b.hostname),
      ),
      backends: [],
      certificates: [certificate],
      secretFiles: [],
      defaultCertificate: undefined,
      defaultBackend: undefined,
      settings: { ...DEFAULT_SETTINGS, workerProcesses: 1 },
    };
    const result = await (await plane.apply(configuration)).done;
    if (result.outcome === 'superseded') throw new Error('the first configuration cannot be superseded');
    const rendered = await readFile(plane.nginx.layout.configFile, 'utf8');
    if (!rendered.includes(`ssl_ciphers "${OWN_CIPHERS}"`)) throw new Error("the host's ssl_ciphers is not rendered");
    const pids = await processTree(plane.nginx.masterPid!);
    await pin(pids, PROXY_CPU);
    for (const variant of VARIANTS) {
      const cipher = await handshake(https, variant.host);
      if (cipher !== NEGOTIATED) throw new Error(`${variant.host}: agreed on ${cipher}, not ${NEGOTIATED}`);
      await measure(https, pids, variant.host, 2); // warm-up
    }

    const results = new Map<Variant, Round[]>(VARIANTS.map((variant) => [variant, []]));
    for (let round = 0; round < rounds; round++) {
      for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const measured = await measure(https, pids, variant.host, seconds);
        results.get(variant)!.push(measured);
        process.stderr.write(
          `round ${round + 1} ${variant.name}: ${figure(measured.handshakesPerSecond)} handshakes/s, ` +
            `nginx ${figure(measured.nginxMicrosecondsPerHandshake, 1)} µs/handshake\n`,
        );
      }
    }
    const medianOf = (variant: Variant, key: keyof Round): number => median(results.get(variant)!.map((round) => round[key]));
    const [without, withCiphers] = VARIANTS as [Variant, Variant];
    process.stdout.write(
      `\n${CONCURRENCY} concurrent full TLS 1.2 handshakes (${NEGOTIATED}, RSA 2048) for ${seconds}s; ` +
        `one nginx worker on CPU ${PROXY_CPU}; median of ${rounds} rounds\n\n`,
    );
    printTable(
      ['host', 'handshakes/s', 'nginx CPU µs/handshake'],
      [
        ...VARIANTS.map((variant) => [
          variant.name,
          figure(medianOf(variant, 'handshakesPerSecond')),
          figure(medianOf(variant, 'nginxMicrosecondsPerHandshake'), 1),
        ]),
        [
          'with / without',
          figure(medianOf(withCiphers, 'handshakesPerSecond') / medianOf(without, 'handshakesPerSecond'), 3),
          figure(medianOf(withCiphers, 'nginxMicrosecondsPerHandshake') / medianOf(without, 'nginxMicrosecondsPerHandshake'), 3),
        ],
      ],
    );
  } finally {
    await plane?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\nmachine after: ${describeMachine()}\n`);
}

await main();
