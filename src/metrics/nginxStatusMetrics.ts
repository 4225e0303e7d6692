// ingress-nginx's nginx connection metrics, read from stub_status on the
// loopback status server (`/nginx_status`) at every scrape.
import { request } from 'undici';
import type { ControllerLabels } from './controllerLabels.js';
import { registerFamily, type FamilyValue } from './metricFamily.js';
import { METRIC_PREFIX } from './metricNames.js';
import type { Registry } from 'prom-client';

export interface StubStatus {
  active: number;
  accepted: number;
  handled: number;
  requests: number;
  reading: number;
  writing: number;
  waiting: number;
}

const STUB_STATUS =
  /^Active connections: (\d+)\s+server accepts handled requests\s+(\d+) (\d+) (\d+)\s+Reading: (\d+) Writing: (\d+) Waiting: (\d+)\s*$/;

/** nginx's stub_status page, or undefined when it is not one. */
export function parseStubStatus(text: string): StubStatus | undefined {
  const match = STUB_STATUS.exec(text);
  if (!match) return undefined;
  const [active, accepted, handled, requests, reading, writing, waiting] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { active, accepted, handled, requests, reading, writing, waiting };
}

const SCRAPE_TIMEOUT_MS = 2000;
const PREFIX = `${METRIC_PREFIX}nginx_process_`;

/**
 * Registers the three families. While nginx does not answer (starting,
 * restarting), they have no samples, as in ingress-nginx.
 */
export function registerNginxStatusMetrics(registry: Registry, labels: ControllerLabels, statusUrl: string): void {
  // One request serves the three families of a scrape (prom-client reads them concurrently).
  let current: Promise<StubStatus | undefined> | undefined;
  const read = async (): Promise<StubStatus | undefined> => {
    current ??= fetchStubStatus(statusUrl).finally(() => setImmediate(() => (current = undefined)));
    return current;
  };
  const samples = (pick: (status: StubStatus) => FamilyValue[]) => async (): Promise<FamilyValue[]> => {
    const status = await read();
    return status ? pick(status) : [];
  };
  registerFamily(
    registry,
    `${PREFIX}connections`,
    'current number of client connections with state {active, reading, writing, waiting}',
    'gauge',
    samples((status) =>
      (['active', 'reading', 'writing', 'waiting'] as const).map((state) => ({ labels: { ...labels, state }, value: status[state] })),
    ),
  );
  registerFamily(
    registry,
    `${PREFIX}connections_total`,
    'total number of connections with state {accepted, handled}',
    'counter',
    samples((status) => (['accepted', 'handled'] as const).map((state) => ({ labels: { ...labels, state }, value: status[state] }))),
  );
  registerFamily(
    registry,
    `${PREFIX}requests_total`,
    'total number of client requests',
    'counter',
    samples((status) => [{ labels, value: status.requests }]),
  );
}

async function fetchStubStatus(url: string): Promise<StubStatus | undefined> {
  try {
    const response = await request(url, { headersTimeout: SCRAPE_TIMEOUT_MS, bodyTimeout: SCRAPE_TIMEOUT_MS });
    const text = await response.body.text();
    return response.statusCode === 200 ? parseStubStatus(text) : undefined;
  } catch {
    return undefined;
  }
}
