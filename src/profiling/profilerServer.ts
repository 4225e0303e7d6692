// `--profiling`, `--profiler-address`, `--profiler-port`: ingress-nginx serves
// Go's pprof there; Portico serves what V8 can say about this process, taken
// with node:inspector in the process itself (no debugger port is opened):
//   /debug/pprof/profile?seconds=N  a CPU profile of N seconds (default 30, as
//                                   pprof; at most MAX_PROFILE_SECONDS), as
//                                   a .cpuprofile (Chrome DevTools, speedscope)
// One profile at a time (409 otherwise). No heap snapshot: unlike pprof's heap
// profile (allocation counts), a V8 heap snapshot holds every string in memory,
// TLS private keys and the service account token among them, and the endpoint
// needs no credentials (anything in the pod's network namespace, or on the node
// with hostNetwork, reaches loopback). It listens where the
// flags say, loopback by default (ingress-nginx's 127.0.0.1); a port already
// taken is logged, and the controller runs on without it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';

export const PROFILE_PATH = '/debug/pprof/profile';
const INDEX_PATH = '/debug/pprof/';
/** pprof's default duration. */
const DEFAULT_PROFILE_SECONDS = 30;
/** A request cannot keep the profiler running longer than this. */
export const MAX_PROFILE_SECONDS = 120;

export interface ProfilerServerOptions {
  host: string;
  port: number;
  logger: Logger;
}

/** The listening server, or undefined when the address could not be bound. */
export async function startProfilerServer(options: ProfilerServerOptions): Promise<Server | undefined> {
  const profiler = new InProcessProfiler();
  const server = createServer((request, response) => {
    serve(request, response, profiler).catch((error: unknown) => {
      options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'profiling request failed');
      if (!response.headersSent) response.writeHead(500).end('profiling failed\n');
      else response.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    options.logger.error(
      { host: options.host, port: options.port, err: error instanceof Error ? error.message : String(error) },
      'profiling endpoint could not listen; running without it (--profiling=false turns it off)',
    );
    return undefined;
  }
  options.logger.info({ host: options.host, port: options.port }, 'profiling endpoint listening');
  return server;
}

async function serve(request: IncomingMessage, response: ServerResponse, profiler: InProcessProfiler): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://profiler');
  if (request.method !== 'GET') {
    response.writeHead(405, { allow: 'GET' }).end();
    return;
  }
  switch (url.pathname) {
    case INDEX_PATH:
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`${PROFILE_PATH}?seconds=N  CPU profile (.cpuprofile), N from 1 to ${MAX_PROFILE_SECONDS}\n`);
      return;
    case PROFILE_PATH: {
      const seconds = profileSeconds(url.searchParams.get('seconds'));
      if (seconds === undefined) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(`seconds must be a whole number from 1 to ${MAX_PROFILE_SECONDS}\n`);
        return;
      }
      await profiler.exclusive(response, async (session) => {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        // The client going away ends the profile early; the profiler never outlives the request.
        const gone = new AbortController();
        response.once('close', () => gone.abort());
        await sleep(seconds * 1000, undefined, { signal: gone.signal }).catch(() => undefined);
        const { profile } = await session.post('Profiler.stop');
        await session.post('Profiler.disable');
        response
          .writeHead(200, {
            'content-type': 'application/json',
            'content-disposition': 'attachment; filename="portico.cpuprofile"',
          })
          .end(JSON.stringify(profile));
      });
      return;
    }
    default:
      response.writeHead(404).end();
  }
}

/** `seconds` as pprof reads it (absent: the default), or undefined when out of bounds. */
export function profileSeconds(text: string | null): number | undefined {
  if (text === null || text === '') return DEFAULT_PROFILE_SECONDS;
  if (!/^\d{1,4}$/.test(text)) return undefined;
  const seconds = Number(text);
  return seconds >= 1 && seconds <= MAX_PROFILE_SECONDS ? seconds : undefined;
}

/** One inspector session at a time: a second profile would stop the first one's profiler. */
class InProcessProfiler {
  private busy = false;

  async exclusive(response: ServerResponse, work: (session: Session) => Promise<void>): Promise<void> {
    if (this.busy) {
      response.writeHead(409, { 'content-type': 'text/plain' }).end('a profile is being taken; try again when it is done\n');
      return;
    }
    this.busy = true;
    const session = new Session();
    session.connect();
    try {
      await work(session);
    } finally {
      session.disconnect();
      this.busy = false;
    }
  }
}
