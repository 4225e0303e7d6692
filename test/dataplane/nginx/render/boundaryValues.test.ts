// Every value the model accepts must be one nginx accepts: nginx -t failing on
// one value refuses every later configuration. Renders the configuration
// with each ConfigMap setting and location annotation at the smallest and the
// largest value the model takes, and a log format naming every variable the
// model admits, and runs the real nginx -t on it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseIngressAnnotations } from '../../../../src/model/annotations/parseIngressAnnotations.js';
import { proxyTuningSettings } from '../../../../src/model/annotations/proxyTuningAnnotations.js';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { NGINX_VARIABLES, NGINX_VARIABLE_PREFIXES, PORTICO_VARIABLES } from '../../../../src/model/settings/logFormatVariables.js';
import { MAX_WORKERS_PER_CPU, parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';

const CPUS = 2;

/** Every variable the log-format check admits (one of each prefix family). */
const EVERY_VARIABLE = [...NGINX_VARIABLES, ...NGINX_VARIABLE_PREFIXES.map((prefix) => `${prefix}x`), ...PORTICO_VARIABLES]
  .map((name) => `$${name}`)
  .join(' ');

const BOUNDS: Record<'smallest' | 'largest', { configMap: Record<string, string>; annotations: Record<string, string> }> = {
  smallest: {
    configMap: {
      'proxy-body-size': '0',
      'proxy-connect-timeout': '1',
      'proxy-read-timeout': '1',
      'proxy-send-timeout': '1',
      'client-header-timeout': '1',
      'client-body-timeout': '1',
      'keep-alive': '0',
      'keep-alive-requests': '0',
      'upstream-keepalive-connections': '1',
      'upstream-keepalive-time': '0',
      'upstream-keepalive-timeout': '0',
      'upstream-keepalive-requests': '0',
      'worker-processes': '1',
      'worker-shutdown-timeout': '0',
      'max-worker-connections': '512',
      'hsts-max-age': '0',
      'ssl-ciphers': 'AES128-SHA:@SECLEVEL=0',
      'log-format-upstream': EVERY_VARIABLE,
      'limit-req-status-code': '400',
      'limit-conn-status-code': '400',
      'limit-rate': '1',
      'limit-rate-after': '1',
      // One-byte buffers: two of them, busy one buffer (nginx's bounds: at least one, at most all but one).
      'proxy-buffer-size': '1',
      'proxy-buffers-number': '2',
      'proxy-busy-buffers-size': '1',
      'proxy-max-temp-file-size': '0',
      'client-body-buffer-size': '1',
      'proxy-next-upstream-timeout': '0',
      'proxy-next-upstream-tries': '0',
    },
    annotations: {
      'proxy-buffer-size': '1',
      'proxy-buffers-number': '2',
      'proxy-busy-buffers-size': '1',
      'proxy-max-temp-file-size': '1',
      'client-body-buffer-size': '1',
      'proxy-next-upstream': 'off',
      'proxy-next-upstream-timeout': '0',
      'proxy-next-upstream-tries': '0',
      'proxy-body-size': '0',
      'proxy-connect-timeout': '1',
      'proxy-read-timeout': '1',
      'proxy-send-timeout': '1',
      'limit-connections': '1',
      'limit-rps': '1',
      'limit-rpm': '1',
      'limit-burst-multiplier': '0',
      'limit-allowlist': '0.0.0.0/0',
    },
  },
  largest: {
    configMap: {
      'proxy-body-size': '8589934591g',
      'proxy-connect-timeout': '2147483',
      'proxy-read-timeout': '2147483',
      'proxy-send-timeout': '2147483',
      'client-header-timeout': '2147483',
      'client-body-timeout': '2147483',
      'keep-alive': '2147483',
      'keep-alive-requests': '2147483647',
      'upstream-keepalive-connections': '65536',
      'upstream-keepalive-time': '2147483647ms',
      'upstream-keepalive-timeout': '2147483',
      'upstream-keepalive-requests': '2147483647',
      'worker-processes': String(MAX_WORKERS_PER_CPU * CPUS),
      'worker-shutdown-timeout': '24d',
      'max-worker-connections': '1048576',
      'hsts-max-age': '2147483647',
      'ssl-ciphers': 'ALL:COMPLEMENTOFALL:!aNULL:-MD5:+RC4:@STRENGTH:@SECLEVEL=1',
      'log-format-upstream': `{"all": "${EVERY_VARIABLE}"}`,
      'log-format-escape-json': 'true',
      'limit-req-status-code': '599',
      'limit-conn-status-code': '599',
      'limit-conn-zone-variable': `${EVERY_VARIABLE.replaceAll(' ', ':')}`,
      'limit-rate': '2147483647',
      'limit-rate-after': '2147483647',
      'proxy-buffer-size': '64m',
      'proxy-buffers-number': '1024',
      'proxy-busy-buffers-size': '64m',
      'proxy-max-temp-file-size': '8796093022207m',
      'client-body-buffer-size': '64m',
      'proxy-next-upstream': 'error timeout invalid_header http_500 http_502 http_503 http_504 http_403 http_404 http_429 non_idempotent',
      'proxy-next-upstream-timeout': '2147483',
      'proxy-next-upstream-tries': '2147483647',
    },
    annotations: {
      'proxy-buffer-size': '65536k',
      'proxy-buffers-number': '1024',
      'proxy-busy-buffers-size': '64M',
      'proxy-max-temp-file-size': '8796093022207m',
      'client-body-buffer-size': '64M',
      'proxy-next-upstream': 'error timeout invalid_header http_500 http_502 http_503 http_504 http_403 http_404 http_429 non_idempotent',
      'proxy-next-upstream-timeout': '2147483',
      'proxy-next-upstream-tries': '2147483647',
      'proxy-body-size': '8796093022207m',
      'proxy-connect-timeout': '2147483',
      'proxy-read-timeout': '2147483',
      'proxy-send-timeout': '2147483',
      'limit-connections': '65535',
      'limit-rps': '1000000',
      'limit-rpm': '60000000',
      'limit-burst-multiplier': '1000',
      'limit-allowlist': '::/0,0.0.0.0/0,255.255.255.255,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128',
    },
  },
};

for (const [bound, { configMap, annotations }] of Object.entries(BOUNDS)) {
  describe(`the ${bound} values the model accepts`, () => {
    const parsed = parseGlobalSettings(configMap, { cpus: CPUS });
    const prefixed = Object.fromEntries(Object.entries(annotations).map(([name, value]) => [`nginx.ingress.kubernetes.io/${name}`, value]));
    const ingress = parseIngressAnnotations(prefixed, { prefix: 'nginx.ingress.kubernetes.io', settings: parsed.settings });

    test('are accepted by the model', () => {
      assert.deepEqual(parsed.problems, []);
      assert.ok(ingress.ok, JSON.stringify(ingress));
    });

    test('pass nginx -t', { skip: missingNginx }, async () => {
      assert.ok(ingress.ok);
      const settings: GlobalSettings = parsed.settings;
      const context = testContext();
      const conf = renderNginxConf(
        configuration({
          settings,
          servers: [
            server('_', []),
            server('bounds.example', [location('/', 'prefix', 'app/web:80', { annotations: ingress.value.location })]),
          ],
          backends: [backend('app/web:80', [{ address: '127.0.0.1', port: 1 }])],
        }),
        context,
      );
      // The sizes, times and counts are rendered as written.
      for (const [key, value] of Object.entries(configMap)) {
        if (/^[0-9]+[a-z]*$/.test(value)) assert.ok(conf.includes(value), `${key} ${value} is rendered`);
      }
      await nginxSyntaxCheck(conf, context);
    });
  });
}

test('nginx -t refuses a variable outside the list (the check above can fail)', { skip: missingNginx }, async () => {
  const context = testContext();
  const settings = { ...parseGlobalSettings({}, { cpus: CPUS }).settings, logFormatUpstream: '$remote_addr $no_such_variable' };
  await assert.rejects(
    nginxSyntaxCheck(renderNginxConf(configuration({ settings, servers: [server('_', [])] }), context), context),
    /unknown "no_such_variable" variable/,
  );
});

test('nginx -t refuses the buffers the model falls back from (the bound checks above can fail)', { skip: missingNginx }, async () => {
  const context = testContext();
  const { settings } = parseGlobalSettings({}, { cpus: CPUS });
  const proxyTuning = { ...proxyTuningSettings(settings), bufferSize: '8k', buffersNumber: 2 };
  const conf = renderNginxConf(
    configuration({
      settings,
      servers: [server('_', []), server('bounds.example', [location('/', 'prefix', 'app/web:80', { annotations: { proxyTuning } })])],
      backends: [backend('app/web:80', [{ address: '127.0.0.1', port: 1 }])],
    }),
    context,
  );
  await assert.rejects(
    nginxSyntaxCheck(conf, context),
    /"proxy_busy_buffers_size" must be less than the size of all "proxy_buffers" minus one buffer/,
  );
});
