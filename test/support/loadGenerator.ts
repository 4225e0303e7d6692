// Bounded load on loopback: N concurrent keep-alive clients sending GETs with
// a Host header (and SNI for HTTPS) to one port in a loop, until stopped or a
// hard cap of requests or time is reached. Every outcome is recorded.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface LoadOptions {
  port: number;
  /** Host header, and the TLS server name for HTTPS. */
  host: string;
  path?: string;
  https?: boolean;
  /** Concurrent clients, and the agent's maxSockets. */
  concurrency?: number;
  /** Hard caps: the load stops by itself at whichever comes first. */
  maxRequests?: number;
  maxDurationMs?: number;
  /** Per-request timeout; a timeout counts as a network error. */
  timeoutMs?: number;
  /** Every n-th request of a client asks for `Connection: close`, so new connections (and TLS handshakes) keep happening. */
  closeConnectionEvery?: number;
}

export interface LoadFailure {
  /** Milliseconds since the load started, when the request finished. */
  readonly atMs: number;
  /** Whether the request went out on a connection that had already carried a request. */
  readonly reusedSocket: boolean;
  readonly message: string;
}

export interface LoadReport {
  /** Epoch milliseconds when the load started (failures' atMs count from here). */
  readonly startedAt: number;
  readonly requests: number;
  readonly durationMs: number;
  /** Responses by status code. */
  readonly statuses: Record<string, number>;
  readonly serverErrors: number;
  readonly networkErrors: number;
  /** The first failures (network errors and non-200 answers), for evidence. */
  readonly failures: readonly LoadFailure[];
  /** 200 answers by echo backend instance. */
  readonly instances: Record<string, number>;
  /** HTTPS: answers by the server certificate's fingerprint. */
  readonly certificates: Record<string, number>;
  /** Why the load stopped: 'stopped', 'max-requests' or 'max-duration'. */
  readonly ended: string;
}

export interface LoadGenerator {
  /** How many requests have completed so far (a mark for `outcomesSince`). */
  completed(): number;
  /** Outcomes (instance name for an echo 200, else the status or 'error') completed after `mark`, from a bounded recent window. */
  outcomesSince(mark: number): string[];
  /** The report so far, while the load runs. */
  snapshot(): LoadReport;
  /** Stops issuing requests, waits for the ones in flight, closes the connections. */
  stop(): Promise<LoadReport>;
}

const RECENT = 4096;
const MAX_FAILURES_KEPT = 50;

export function startLoad(options: LoadOptions): LoadGenerator {
  const concurrency = options.concurrency ?? 8;
  const maxRequests = options.maxRequests ?? 200_000;
  const maxDurationMs = options.maxDurationMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const agent = options.https
    ? // No TLS session resumption: every new connection is a full handshake that sees the certificate served now.
      new HttpsAgent({ keepAlive: true, maxSockets: concurrency, maxCachedSessions: 0 })
    : new HttpAgent({ keepAlive: true, maxSockets: concurrency });
  const send = options.https ? httpsRequest : httpRequest;
  const started = Date.now();

  let issued = 0;
  let done = 0;
  let networkErrors = 0;
  let serverErrors = 0;
  let stopped = false;
  let ended = 'stopped';
  let finishedAt: number | undefined;
  const statuses: Record<string, number> = {};
  const instances: Record<string, number> = {};
  const certificates: Record<string, number> = {};
  const failures: LoadFailure[] = [];
  const recent: string[] = new Array<string>(RECENT);

  const record = (outcome: string, failure?: Omit<LoadFailure, 'atMs'>): void => {
    recent[done % RECENT] = outcome;
    done++;
    if (failure && failures.length < MAX_FAILURES_KEPT) failures.push({ atMs: Date.now() - started, ...failure });
  };

  const once = (sequence: number): Promise<void> =>
    new Promise((resolve) => {
      let settled = false;
      const close = options.closeConnectionEvery !== undefined && sequence % options.closeConnectionEvery === 0;
      const req = send(
        {
          host: '127.0.0.1',
          port: options.port,
          path: options.path ?? '/',
          method: 'GET',
          headers: { host: options.host, ...(close ? { connection: 'close' } : {}) },
          agent,
          timeout: timeoutMs,
          ...(options.https ? { servername: options.host, rejectUnauthorized: false } : {}),
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          const fingerprint = options.https ? (response.socket as TLSSocket).getPeerCertificate().fingerprint256 : undefined;
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => fail(error));
          response.on('end', () => {
            if (settled) return;
            settled = true;
            const status = response.statusCode ?? 0;
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status >= 500) serverErrors++;
            if (fingerprint !== undefined) certificates[fingerprint] = (certificates[fingerprint] ?? 0) + 1;
            if (status === 200) {
              let instance = 'not-echo';
              try {
                instance = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { instance?: string }).instance ?? 'not-echo';
              } catch {
                // recorded as not-echo
              }
              instances[instance] = (instances[instance] ?? 0) + 1;
              record(instance);
            } else {
              record(String(status), { reusedSocket: req.reusedSocket, message: `HTTP ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 120)}` });
            }
            resolve();
          });
        },
      );
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        networkErrors++;
        const code = (error as NodeJS.ErrnoException).code;
        record('error', { reusedSocket: req.reusedSocket, message: `${code ?? 'error'}: ${error.message}` });
        resolve();
      };
      req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      req.on('error', fail);
      req.end();
    });

  const client = async (): Promise<void> => {
    let sequence = 0;
    for (;;) {
      if (stopped) return;
      if (issued >= maxRequests) {
        ended = 'max-requests';
        return;
      }
      if (Date.now() - started >= maxDurationMs) {
        ended = 'max-duration';
        return;
      }
      issued++;
      await once(++sequence);
    }
  };

  const clients = Promise.all(Array.from({ length: concurrency }, () => client())).then(() => {
    finishedAt = Date.now();
  });

  const snapshot = (): LoadReport => ({
    startedAt: started,
    requests: done,
    durationMs: (finishedAt ?? Date.now()) - started,
    statuses: { ...statuses },
    serverErrors,
    networkErrors,
    failures: [...failures],
    instances: { ...instances },
    certificates: { ...certificates },
    ended,
  });

  return {
    completed: () => done,
    outcomesSince(mark) {
      const from = Math.max(mark, done - RECENT);
      const outcomes: string[] = [];
      for (let i = from; i < done; i++) outcomes.push(recent[i % RECENT] ?? '?');
      return outcomes;
    },
    snapshot,
    async stop() {
      stopped = true;
      await clients;
      agent.destroy();
      return snapshot();
    },
  };
}

/** One line for the test's output. */
export function describeLoad(name: string, report: LoadReport): string {
  const rps = report.durationMs > 0 ? Math.round((report.requests * 1000) / report.durationMs) : 0;
  return (
    `${name}: ${report.requests} requests in ${report.durationMs} ms (${rps}/s, ended: ${report.ended}), ` +
    `statuses ${JSON.stringify(report.statuses)}, 5xx ${report.serverErrors}, network errors ${report.networkErrors}, ` +
    `instances ${JSON.stringify(report.instances)}` +
    (Object.keys(report.certificates).length > 0 ? `, certificates ${Object.keys(report.certificates).length}` : '') +
    (report.failures.length > 0 ? `\n  failures: ${report.failures.map((f) => `[+${f.atMs}ms reused=${f.reusedSocket}] ${f.message}`).join('\n  ')}` : '')
  );
}
