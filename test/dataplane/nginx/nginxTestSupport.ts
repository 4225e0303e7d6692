// Helpers for tests that run a real nginx: a minimal configuration in the
// shape the renderer produces, a one-shot HTTP client, and a view of /proc.
import { request, type RequestOptions } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { PrefixLayout } from '../../../src/dataplane/nginx/process/prefixLayout.js';

export interface TestServer {
  readonly port: number;
  /** What `return 200` answers. */
  readonly body: string;
}

/**
 * One worker, logs and temp paths inside the prefix, one `return 200 "<body>"`
 * server per entry, and a `return 503` server on the no-endpoints socket (as
 * Portico's configuration has).
 */
export function minimalConfig(layout: PrefixLayout, servers: readonly TestServer[], extra = ''): string {
  return `worker_processes 1;
error_log ${layout.errorLog} notice;
${extra}
events { worker_connections 64; }
http {
  error_log ${layout.errorLog} notice;
  access_log ${layout.accessLog};
  client_body_temp_path ${layout.temp.clientBody};
  proxy_temp_path ${layout.temp.proxy};
  fastcgi_temp_path ${layout.temp.fastcgi};
  uwsgi_temp_path ${layout.temp.uwsgi};
  scgi_temp_path ${layout.temp.scgi};
${servers.map(({ port, body }) => `  server { listen 127.0.0.1:${port}; return 200 "${body}"; }`).join('\n')}
  server { listen unix:${layout.noEndpointsSocket}; return 503; }
}
`;
}

/** GET / on a fresh connection (no keep-alive: a reload retires the workers holding old connections). */
export function httpGet(port: number, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return get({ host: '127.0.0.1', port }, `127.0.0.1:${port}`, timeoutMs);
}

/** GET / over a unix socket, on a fresh connection. */
export function unixSocketGet(socketPath: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return get({ socketPath }, `unix:${socketPath}`, timeoutMs);
}

function get(target: RequestOptions, name: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ ...target, path: '/', agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${name} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

interface ProcessStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
}

function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
  const [state = '', ppid = '', pgid = ''] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

/** Live processes (zombies do not count: they hold no socket and run nothing). */
function liveProcesses(): ProcessStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcessStat => stat !== undefined && stat.state !== 'Z');
}

export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** Live children of `pid` (a master's workers), sorted. */
export function childPids(pid: number): number[] {
  return liveProcesses()
    .filter((stat) => stat.ppid === pid)
    .map((stat) => stat.pid)
    .sort((a, b) => a - b);
}

/** Live members of process group `pgid`, orphans included. */
export function groupPids(pgid: number): number[] {
  return liveProcesses()
    .filter((stat) => stat.pgid === pgid)
    .map((stat) => stat.pid)
    .sort((a, b) => a - b);
}

/** The real user id a process runs as. */
export function processUid(pid: number): number {
  const match = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no Uid line for process ${pid}`);
  return Number(match[1]);
}

export function ownerUid(path: string): number {
  return statSync(path).uid;
}
