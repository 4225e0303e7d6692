// The lua-nginx-module Portico loads (src/dataplane/nginx/luaModule.ts): its
// own build of Debian's, in which a block without lua_ssl_* directives shares
// its parent's cosocket TLS context (scripts/patches/), through real nginx:
// what a location block costs in memory, beside Debian's module, and that
// cosockets still verify with the TLS settings each block inherits or sets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseLuaModule, DEBIAN_LUA_MODULE, PORTICO_LUA_MODULE } from '../../../src/dataplane/nginx/luaModule.js';
import { eventually } from '../../support/eventually.js';
import { freeLoopbackPorts } from '../../support/freePort.js';
import { httpGet } from '../../support/httpGet.js';
import { createTestCertificates, type TestCertificates } from '../../support/testCertificates.js';

const NGINX_BINARY = '/usr/sbin/nginx';
const NDK_MODULE = '/usr/share/nginx/modules/ndk_http_module.so';
const missing = [NGINX_BINARY, NDK_MODULE, DEBIAN_LUA_MODULE].find((path) => !existsSync(path));
const options = { timeout: 120_000, skip: missing === undefined ? false : `${missing} is not installed` };

/** Location blocks of the larger configuration: enough that their contexts dwarf the noise. */
const MANY_LOCATIONS = 2_000;
/**
 * Resident memory one `location = /p { return 200; }` block adds, in KiB: about 8 with
 * Portico's build (nginx's own per-location structures), about 21 with Debian's
 * (plus an OpenSSL 3 context). The bound sits between them.
 */
const MAX_KIB_PER_LOCATION = 14;

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-lua-module-'));
});

after(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface RunningNginx {
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** One nginx process (no master) on `conf`, once it answers on `port`. */
async function startNginx(name: string, conf: string, port: number): Promise<RunningNginx> {
  const prefix = join(dir, name);
  await mkdir(join(prefix, 'logs'), { recursive: true });
  await writeFile(join(prefix, 'nginx.conf'), conf);
  const child = spawn(
    NGINX_BINARY,
    [
      '-p',
      `${prefix}/`,
      '-c',
      join(prefix, 'nginx.conf'),
      '-g',
      `daemon off; master_process off; pid ${prefix}/nginx.pid; error_log ${prefix}/logs/error.log;`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await eventually(async () => {
      assert.equal(child.exitCode, null, `nginx exited: ${stderr}`);
      assert.equal((await httpGet({ port, path: '/p0' })).status, 200);
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    process: child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function modulesOf(luaModule: string): string {
  return `load_module ${NDK_MODULE};\nload_module ${luaModule};\nevents {}\n`;
}

/** The resident memory of nginx with `locations` location blocks in one server, in KiB. */
async function residentKib(luaModule: string, locations: number): Promise<number> {
  const [port] = await freeLoopbackPorts(1);
  const blocks = Array.from({ length: locations }, (_, i) => `    location = /p${i} { return 200; }`).join('\n');
  const conf = `${modulesOf(luaModule)}http {\n  access_log off;\n  server {\n    listen 127.0.0.1:${port};\n${blocks}\n  }\n}\n`;
  const nginx = await startNginx(`${luaModule === DEBIAN_LUA_MODULE ? 'debian' : 'portico'}-${locations}`, conf, port!);
  try {
    const status = await readFile(`/proc/${nginx.process.pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    assert.ok(rss, status);
    return Number(rss[1]);
  } finally {
    await nginx.stop();
  }
}

async function kibPerLocation(luaModule: string): Promise<number> {
  return ((await residentKib(luaModule, MANY_LOCATIONS)) - (await residentKib(luaModule, 2))) / (MANY_LOCATIONS - 2);
}

test("Portico's build is installed and is the module the data plane loads", options, () => {
  assert.ok(existsSync(PORTICO_LUA_MODULE), `${PORTICO_LUA_MODULE}: scripts/setup.sh installs it`);
  assert.deepEqual(chooseLuaModule(), { file: PORTICO_LUA_MODULE, sharesTlsContexts: true });
  assert.deepEqual(chooseLuaModule(join(dir, 'absent.so')), { file: DEBIAN_LUA_MODULE, sharesTlsContexts: false });
});

test(
  "a location block costs far less memory with Portico's build than with Debian's (no OpenSSL context of its own)",
  options,
  async () => {
    const portico = await kibPerLocation(PORTICO_LUA_MODULE);
    const debian = await kibPerLocation(DEBIAN_LUA_MODULE);
    assert.ok(portico < MAX_KIB_PER_LOCATION, `Portico's build: ${portico.toFixed(1)} KiB per location block`);
    assert.ok(debian > MAX_KIB_PER_LOCATION, `Debian's module: ${debian.toFixed(1)} KiB per location block`);
  },
);

describe("cosockets verify with the TLS settings a block inherits or sets (Portico's build)", () => {
  let authority: TestCertificates;
  let otherAuthority: TestCertificates;
  let nginx: RunningNginx;
  let ports: number[];

  before(async () => {
    if (options.skip !== false) return;
    authority = await createTestCertificates(await mkdtemp(join(dir, 'ca-')));
    otherAuthority = await createTestCertificates(await mkdtemp(join(dir, 'other-ca-')));
    ports = await freeLoopbackPorts(4);
    const [tls, first, own, second] = ports as [number, number, number, number];
    // Handshakes with the TLS server below, verifying its certificate (issued for localhost by `authority`).
    const handshake = `content_by_lua_block {
        local socket = ngx.socket.tcp()
        assert(socket:connect("127.0.0.1", ${tls}))
        local session, err = socket:sslhandshake(nil, "localhost", true)
        ngx.say(session and "verified" or ("refused: " .. tostring(err)))
      }`;
    const conf = `${modulesOf(PORTICO_LUA_MODULE)}http {
  access_log off;
  lua_ssl_trusted_certificate ${authority.caCert};
  lua_ssl_verify_depth 2;
  server {
    listen 127.0.0.1:${tls} ssl;
    ssl_certificate ${authority.servingCert};
    ssl_certificate_key ${authority.servingKey};
    location / { return 200; }
  }
  server {
    listen 127.0.0.1:${first};
    location = /p0 { return 200; }
    location = /inherits { ${handshake} }
    location = /own { lua_ssl_trusted_certificate ${otherAuthority.caCert}; ${handshake} }
    location /nested/ { location = /nested/inner { ${handshake} } }
  }
  server {
    listen 127.0.0.1:${own};
    lua_ssl_trusted_certificate ${otherAuthority.caCert};
    location = /inherits { ${handshake} }
  }
  server {
    listen 127.0.0.1:${second};
    location = /inherits { ${handshake} }
  }
}
`;
    nginx = await startNginx('cosockets', conf, first);
  });

  after(async () => {
    await nginx?.stop();
  });

  const body = async (port: number, path: string): Promise<string> => (await httpGet({ port, path })).body.trim();

  test("the http block's trusted CA in a location, a nested one, and in a later server without settings of its own", options, async () => {
    const [, first, , second] = ports as [number, number, number, number];
    assert.equal(await body(first, '/inherits'), 'verified');
    assert.equal(await body(first, '/nested/inner'), 'verified');
    assert.equal(await body(second, '/inherits'), 'verified');
  });

  test("a location's own CA, and a server's own CA in its locations, refuse the other authority's certificate", options, async () => {
    const [, first, own] = ports as [number, number, number, number];
    assert.match(await body(first, '/own'), /^refused: .*unable to verify/);
    assert.match(await body(own, '/inherits'), /^refused: .*unable to verify/);
  });
});
