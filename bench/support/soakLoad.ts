// The soak's steady load: `rate` GETs per second in all, spread round-robin
// over targets (hosts through Portico's nginx, plain or TLS), on keep-alive
// connections, bounded by a total count and a duration. Each answer is judged
// by its target when it arrives: 'ok', 'pending' (a change whose effect is not
// visible yet: not a failure) or the kind of failure it is.
//
// Like a standard HTTP/1.1 client (and test/support/loadGenerator.ts), a GET
// whose reused connection was closed before a single byte of the answer (an
// idle keep-alive connection a retiring worker closed at a reload) is sent once
// more on a new connection, and counted apart as retried.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { closedBeforeAnswer } from '../../test/support/loadGenerator.js';

/** An answer: the status and, for an echo backend's 200, its instance; or why there was none. */
export type Answer = { readonly status: number; readonly instance: string | undefined } | { readonly error: string };

export const OK = 'ok';
export const PENDING = 'pending';

export interface SoakTarget {
  readonly name: string;
  readonly host: string;
  readonly https: boolean;
  /** The path to ask for now: a changing target's moves with the rounds. */
  path(): string;
  /** OK, PENDING or a failure kind, for an answer to `path` sent at `sentAt` (performance.now()). */
  judge(answer: Answer, path: string, sentAt: number): string;
}

export interface SoakLoadOptions {
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly targets: readonly SoakTarget[];
  /** Requests per second, all targets together. */
  readonly rate: number;
  readonly maxRequests: number;
  readonly maxDurationMs: number;
  readonly timeoutMs: number;
  /** Beyond this many in flight, a due request is not sent (counted as not sent): the load never piles up. */
  readonly maxInFlight: number;
}

export interface SoakLoadReport {
  readonly sent: number;
  /** Due but not sent: that many were in flight already. */
  readonly notSent: number;
  readonly retried: number;
  /** By target name, then by outcome kind. */
  readonly outcomes: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** The first failures, as `<ms since start> <target> <path>: <kind> (<detail>)`. */
  readonly failures: readonly string[];
}

export interface SoakLoad {
  /** Stops sending, waits for what is in flight, closes the connections. */
  stop(): Promise<SoakLoadReport>;
}

const TICK_MS = 20;
const FAILURES_KEPT = 30;

export function startSoakLoad(options: SoakLoadOptions): SoakLoad {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  // No session resumption: each new connection is a full handshake, which sees the certificate served now.
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 8, maxCachedSessions: 0 });
  const started = performance.now();
  const outcomes: Record<string, Record<string, number>> = {};
  const failures: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let scheduled = 0;
  let sent = 0;
  let notSent = 0;
  let retried = 0;

  const count = (target: SoakTarget, path: string, kind: string, detail: string): void => {
    const byKind = (outcomes[target.name] ??= {});
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (kind !== OK && kind !== PENDING && failures.length < FAILURES_KEPT) {
      failures.push(`${Math.round(performance.now() - started)} ms ${target.name} ${path}: ${kind} (${detail})`);
    }
  };

  const send = (target: SoakTarget): Promise<void> => {
    const path = target.path();
    const sentAt = performance.now();
    const attempt = (fresh: boolean): Promise<Answer> =>
      new Promise((resolve) => {
        let socket: Socket | undefined;
        let bytesBefore = 0;
        let settled = false;
        const agent = fresh ? false : target.https ? httpsAgent : httpAgent;
        const request = (target.https ? httpsRequest : httpRequest)(
          {
            host: '127.0.0.1',
            port: target.https ? options.httpsPort : options.httpPort,
            path,
            headers: { host: target.host },
            agent,
            timeout: options.timeoutMs,
            ...(target.https ? { servername: target.host, rejectUnauthorized: false } : {}),
          },
          (response: IncomingMessage) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', (error) => fail(error));
            response.on('end', () => {
              if (settled) return;
              settled = true;
              resolve({ status: response.statusCode ?? 0, instance: echoInstance(Buffer.concat(chunks).toString('utf8')) });
            });
          },
        );
        request.on('socket', (assigned: Socket) => {
          socket = assigned;
          bytesBefore = assigned.bytesRead;
        });
        const fail = (error: Error): void => {
          if (settled) return;
          settled = true;
          const answerBytes = socket === undefined ? 0 : socket.bytesRead - bytesBefore;
          if (!fresh && closedBeforeAnswer(request, error, answerBytes)) {
            retried++;
            void attempt(true).then(resolve);
            return;
          }
          resolve({ error: `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${error.message}${fresh ? ' (retry)' : ''}` });
        };
        request.on('timeout', () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
        request.on('error', fail);
        request.end();
      });
    return attempt(false).then((answer) => {
      const detail = 'error' in answer ? answer.error : `HTTP ${answer.status}, ${answer.instance ?? 'not an echo backend'}`;
      count(target, path, target.judge(answer, path, sentAt), detail);
    });
  };

  const tick = (): void => {
    const elapsed = performance.now() - started;
    const due = Math.min(options.maxRequests, Math.floor((elapsed * options.rate) / 1000));
    for (; scheduled < due; scheduled++) {
      if (inFlight.size >= options.maxInFlight) {
        notSent++;
        continue;
      }
      const target = options.targets[scheduled % options.targets.length]!;
      sent++;
      const request = send(target);
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
    if (scheduled >= options.maxRequests || elapsed >= options.maxDurationMs) clearInterval(timer);
  };
  const timer = setInterval(tick, TICK_MS);

  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      httpAgent.destroy();
      httpsAgent.destroy();
      return { sent, notSent, retried, outcomes, failures };
    },
  };
}

/** The echo backend answers JSON naming its instance (tools/echo/echoServer.ts); anything else is not from it. */
export function echoInstance(body: string): string | undefined {
  try {
    const instance = (JSON.parse(body) as { instance?: unknown }).instance;
    return typeof instance === 'string' ? instance : undefined;
  } catch {
    return undefined;
  }
}
