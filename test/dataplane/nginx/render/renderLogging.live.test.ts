// The logging keys served by a real nginx: access-log-path moves the access
// log, skip-access-log-urls leaves URLs out of it, log-format-escape-none
// writes values unescaped, error-log-path moves the error log, and
// enable-syslog sends the lines to a UDP syslog receiver (a dgram socket on
// the loopback address).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { RenderContext } from '../../../../src/dataplane/nginx/render/renderContext.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { spawnGuarded, type GuardedProcess } from '../../../support/childProcess.js';
import { eventually } from '../../../support/eventually.js';
import { freeLoopbackPorts } from '../../../support/freePort.js';
import { configuration, server, testContext } from './fixtures.js';
import { createNginxPrefix, missingNginx, NGINX_BINARY, type NginxPrefix } from './nginxPrefix.js';

const HOST = 'logs.example';

/** One request to `path` on `port` (every location here answers 404); `headers` added. */
function send(port: number, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: options.method ?? 'GET',
      headers: { host: HOST, ...options.headers },
      agent: false,
    });
    req.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function linesWith(file: string, text: string): Promise<string[]> {
  const content = await readFile(file, 'utf8').catch(() => '');
  return content.split('\n').filter((line) => line.includes(text));
}

/** nginx serving the catch-all and HOST with these ConfigMap keys, its prefix and a folder for moved logs. */
class LoggingNginx {
  private constructor(
    readonly context: RenderContext,
    readonly prefix: NginxPrefix,
    readonly logDir: string,
    private readonly nginx: GuardedProcess,
  ) {}

  static async start(logDir: string, data: Record<string, string>): Promise<LoggingNginx> {
    const { settings, problems } = parseGlobalSettings(data, { cpus: 2 });
    assert.deepEqual(problems, []);
    const [http = 0, https = 0, defaultServer = 0, status = 0] = await freeLoopbackPorts(4);
    const context = testContext({
      ports: { http, https, defaultServer, status },
      paths: { noEndpointsSocket: join(logDir, 'no-endpoints.sock'), configurationSocket: join(logDir, 'configuration.sock') },
    });
    const prefix = await createNginxPrefix(
      renderNginxConf(configuration({ servers: [server('_', []), server(HOST, [])], settings }), context),
      context,
    );
    const nginx = await spawnGuarded('nginx', NGINX_BINARY, prefix.args, join(logDir, 'nginx.out'));
    const started = new LoggingNginx(context, prefix, logDir, nginx);
    await eventually(async () => assert.equal(await send(status, '/healthz'), 200), { timeoutMs: 10_000 });
    return started;
  }

  /** Portico's own access log in the prefix, where the log is when no key moves it. */
  get defaultAccessLog(): string {
    return join(this.prefix.dir, this.context.paths.accessLog);
  }

  get defaultErrorLog(): string {
    return join(this.prefix.dir, this.context.paths.errorLog);
  }

  async stop(): Promise<void> {
    await this.nginx.stop(5_000);
    await this.prefix.remove();
  }
}

describe('logging keys served by nginx', { skip: missingNginx }, () => {
  let logDir: string;
  before(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'portico-logging-'));
    await chmod(logDir, 0o755); // workers (nobody) connect to the no-endpoints socket
  });
  after(async () => {
    if (logDir !== undefined) await rm(logDir, { recursive: true, force: true });
  });

  describe('access-log-path, skip-access-log-urls, log-format-escape-none, error-log-path', () => {
    let nginx: LoggingNginx;
    before(async () => {
      nginx = await LoggingNginx.start(logDir, {
        'access-log-path': join(logDir, 'moved-access.log'),
        'error-log-path': join(logDir, 'moved-error.log'),
        'skip-access-log-urls': '/healthz,/skipped?probe=1',
        'log-format-upstream': 'portico-line $request_uri "$http_x_marker"',
        'log-format-escape-none': 'true',
        'access-log-params': 'buffer=4k flush=1s',
      });
    });
    after(() => nginx?.stop());

    test('a request is logged at access-log-path, not in the prefix; escape=none writes its header as sent', async () => {
      const marker = randomUUID();
      assert.equal(await send(nginx.context.ports.http, `/logged/${marker}`, { headers: { 'x-marker': `a"b\\c ${marker}` } }), 404);
      // The buffer is flushed within flush=1s.
      await eventually(
        async () =>
          assert.deepEqual(await linesWith(join(logDir, 'moved-access.log'), marker), [
            `portico-line /logged/${marker} "a"b\\c ${marker}"`,
          ]),
        { timeoutMs: 10_000 },
      );
      assert.deepEqual(await linesWith(nginx.defaultAccessLog, marker), []);
    });

    test('skip-access-log-urls: the exact request targets are not logged, others are', async () => {
      const marker = randomUUID();
      const port = nginx.context.ports.http;
      for (const path of ['/healthz', '/skipped?probe=1']) assert.equal(await send(port, path, { headers: { 'x-marker': marker } }), 404);
      for (const path of ['/healthz/', '/skipped?probe=2', '/healthz?x'])
        assert.equal(await send(port, path, { headers: { 'x-marker': marker } }), 404);
      await eventually(
        async () =>
          assert.deepEqual(
            (await linesWith(join(logDir, 'moved-access.log'), marker)).map((line) => line.split(' ')[1]),
            ['/healthz/', '/skipped?probe=2', '/healthz?x'],
          ),
        { timeoutMs: 10_000 },
      );
    });

    test("error-log-path: a request's error goes to the moved error log, not to the prefix's", async () => {
      const marker = randomUUID();
      // Refused from its Content-Length alone (client_max_body_size 1m), which nginx logs at error level.
      assert.equal(
        await send(nginx.context.ports.http, `/too-large/${marker}`, { method: 'POST', headers: { 'content-length': '2000000' } }),
        413,
      );
      await eventually(
        async () => {
          const [line, ...others] = await linesWith(join(logDir, 'moved-error.log'), marker);
          assert.match(line ?? '', /\[error\].*client intended to send too large body/);
          assert.equal(others.length, 0);
        },
        { timeoutMs: 10_000 },
      );
      assert.deepEqual(await linesWith(nginx.defaultErrorLog, marker), []);
    });
  });

  describe('enable-syslog', () => {
    let nginx: LoggingNginx;
    let receiver: Socket;
    const received: string[] = [];
    before(async () => {
      receiver = createSocket('udp4');
      receiver.on('message', (message) => received.push(message.toString('utf8')));
      await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
      nginx = await LoggingNginx.start(logDir, {
        'enable-syslog': 'true',
        'syslog-host': '127.0.0.1',
        'syslog-port': String(receiver.address().port),
        'log-format-upstream': 'portico-line $request_uri $status',
      });
    });
    after(async () => {
      await nginx?.stop();
      receiver?.close();
    });

    test("the access log line and the request's error reach the syslog receiver, not the files", async () => {
      const marker = randomUUID();
      assert.equal(await send(nginx.context.ports.http, `/syslog/${marker}`), 404);
      assert.equal(
        await send(nginx.context.ports.http, `/too-large/${marker}`, { method: 'POST', headers: { 'content-length': '2000000' } }),
        413,
      );
      await eventually(
        () => {
          const mine = received.filter((message) => message.includes(marker));
          // RFC 3164 as nginx writes it: <PRI>timestamp hostname nginx: message.
          assert.ok(
            mine.some((message) => /^<\d+>.* nginx: portico-line \/syslog\/[0-9a-f-]+ 404$/.test(message)),
            mine.join('\n'),
          );
          assert.ok(
            mine.some((message) => /^<\d+>.* nginx: .*client intended to send too large body/.test(message)),
            mine.join('\n'),
          );
        },
        { timeoutMs: 10_000 },
      );
      assert.deepEqual(await linesWith(nginx.defaultAccessLog, marker), []);
      assert.deepEqual(await linesWith(nginx.defaultErrorLog, marker), []);
    });
  });
});
