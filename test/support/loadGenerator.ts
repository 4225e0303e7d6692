// Bounded load on loopback: N concurrent keep-alive clients sending GETs with
// a Host header (and SNI for HTTPS) to one port in a loop, until stopped or a
// hard cap of requests or time is reached. Every outcome is recorded.
//
// Each client keeps one connection and behaves like a standard HTTP/1.1
// client: a server may close an idle persistent connection at any time (RFC
// 9112 §9.6), so an idempotent request whose *reused* connection closed before
// a single byte of the answer arrived is sent once more, on a new connection
// (what Go's net/http and browsers do by themselves, and what Node documents
// for `request.reusedSocket`). Such retries are counted apart from failures;
// anything else (a fresh connection failing, an answer cut short, a retry
// failing, a timeout) is a failure.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface LoadOptions {
  port: number;
  /** Host header, and the TLS server name for HTTPS. */
  host: string;
  path?: string;
  https?: boolean;
  /** Concurrent clients, each with a keep-alive connection of its own. */
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
  /** Requests sent again because their reused connection closed before any byte of the answer (see the top of this file). */
  readonly retriedResets: number;
  /** The first of those, for evidence (all on reused connections, by definition). */
  readonly retries: readonly LoadFailure[];
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
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether a failed request is one a standard client sends again: idempotent,
 * on a connection that had already carried a request, which the server closed
 * (ECONNRESET: a reset, or Node's "socket hang up" for an early FIN) before a
 * single byte of the answer arrived. The server cannot have answered it.
 */
export function closedBeforeAnswer(request: ClientRequest, error: Error, answerBytes: number): boolean {
  return (
    IDEMPOTENT_METHODS.has(request.method) &&
    request.reusedSocket &&
    (error as NodeJS.ErrnoException).code === 'ECONNRESET' &&
    answerBytes === 0
  );
}

export function startLoad(options: LoadOptions): LoadGenerator {
  const concurrency = options.concurrency ?? 8;
  const maxRequests = options.maxRequests ?? 200_000;
  const maxDurationMs = options.maxDurationMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  // One socket per client: a retry then always goes out on a new connection.
  const newAgent = (): HttpAgent =>
    options.https
      ? // No TLS session resumption: every new connection is a full handshake that sees the certificate served now.
        new HttpsAgent({ keepAlive: true, maxSockets: 1, maxCachedSessions: 0 })
      : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const agents: HttpAgent[] = [];
  const send = options.https ? httpsRequest : httpRequest;
  const started = Date.now();

  let issued = 0;
  let done = 0;
  let networkErrors = 0;
  let serverErrors = 0;
  let retriedResets = 0;
  let stopped = false;
  let ended = 'stopped';
  let finishedAt: number | undefined;
  const statuses: Record<string, number> = {};
  const instances: Record<string, number> = {};
  const certificates: Record<string, number> = {};
  const failures: LoadFailure[] = [];
  const retries: LoadFailure[] = [];
  const recent: string[] = new Array<string>(RECENT);

  const record = (outcome: string, failure?: Omit<LoadFailure, 'atMs'>): void => {
    recent[done % RECENT] = outcome;
    done++;
    if (failure && failures.length < MAX_FAILURES_KEPT) failures.push({ atMs: Date.now() - started, ...failure });
  };

  const once = (sequence: number, agent: HttpAgent): Promise<void> =>
    new Promise((resolve) => {
      const close = options.closeConnectionEvery !== undefined && sequence % options.closeConnectionEvery === 0;
      const attempt = (isRetry: boolean): void => {
        let settled = false;
        let socket: Socket | undefined;
        let bytesReadBefore = 0;
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
                record(String(status), {
                  reusedSocket: req.reusedSocket,
                  message: `HTTP ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 120)}`,
                });
              }
              resolve();
            });
          },
        );
        // For a reused socket, what it read before this request is the previous answer.
        req.on('socket', (assigned: Socket) => {
          socket = assigned;
          bytesReadBefore = assigned.bytesRead;
        });
        const fail = (error: Error): void => {
          if (settled) return;
          settled = true;
          const code = (error as NodeJS.ErrnoException).code;
          const message = `${code ?? 'error'}: ${error.message}`;
          const answerBytes = socket === undefined ? 0 : socket.bytesRead - bytesReadBefore;
          if (!isRetry && closedBeforeAnswer(req, error, answerBytes)) {
            retriedResets++;
            if (retries.length < MAX_FAILURES_KEPT) retries.push({ atMs: Date.now() - started, reusedSocket: true, message });
            attempt(true);
            return;
          }
          networkErrors++;
          record('error', { reusedSocket: req.reusedSocket, message: `${isRetry ? 'retry: ' : ''}${message}` });
          resolve();
        };
        req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
        req.on('error', fail);
        req.end();
      };
      attempt(false);
    });

  const client = async (): Promise<void> => {
    const agent = newAgent();
    agents.push(agent);
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
      await once(++sequence, agent);
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
    retriedResets,
    retries: [...retries],
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
      for (const agent of agents) agent.destroy();
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
    `, retried after a reused connection closed before any answer byte: ${report.retriedResets}` +
    listed('retried', report.retries) +
    listed('failures', report.failures)
  );
}

function listed(title: string, entries: readonly LoadFailure[]): string {
  if (entries.length === 0) return '';
  return `\n  ${title}: ${entries.map((entry) => `[+${entry.atMs}ms reused=${entry.reusedSocket}] ${entry.message}`).join('\n  ')}`;
}
