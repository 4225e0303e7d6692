// Hostile values in the TCP/UDP services ConfigMaps and the proxy-stream-*
// keys: see renderNginxConf.hostile.test.ts. Each is refused by the model
// (the entry left out, a problem on its ConfigMap; the setting's default
// kept), so what is rendered passes nginx -t; the renderer alone, given
// values no parser would pass, refuses to render.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { buildStreamServices, type ConfigMapProblem } from '../../../../src/model/stream/streamServices.js';
import { NO_STREAM, type StreamService } from '../../../../src/model/stream/streamTypes.js';
import { ALLOW_ALL_ENDPOINTS, world } from '../../../model/modelTestSupport.js';
import { configuration, server } from './fixtures.js';
import { context, HOSTILE_STRINGS, LONG } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';

const ECHO = { metadata: { name: 'echo', namespace: 'app' }, spec: { ports: [{ name: 'echo', port: 7000 }] } };
const ECHO_SLICE = {
  metadata: { name: 'echo-x', namespace: 'app', labels: { 'kubernetes.io/service-name': 'echo' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'] }],
  ports: [{ name: 'echo', port: 7000 }],
};

test('hostile entries are refused one by one; the good one is served and the result passes nginx -t', { skip: missingNginx }, async () => {
  const data: Record<string, string> = { '9000': 'app/echo:echo' };
  let port = 9001;
  for (const hostile of [...HOSTILE_STRINGS, LONG]) {
    for (const value of [hostile, `app/echo:${hostile}`, `app/echo:echo:${hostile}`, `app/echo:echo::${hostile}`, `${hostile}/echo:7000`]) {
      data[String(port++)] = value;
    }
    data[hostile] = 'app/echo:7000';
  }
  const lookup = world([ECHO], [ECHO_SLICE], [], [{ metadata: { name: 'tcp', namespace: 'ingress' }, data }]);
  const problems: ConfigMapProblem[] = [];
  const services = buildStreamServices({ sources: { tcpConfigMap: 'ingress/tcp' }, lookup, policy: ALLOW_ALL_ENDPOINTS }, problems);
  assert.deepEqual(
    services.map((s) => s.upstreamName),
    ['tcp-app-echo-echo'],
  );
  assert.equal(problems.length, Object.keys(data).length - 1);
  for (const hostile of [...HOSTILE_STRINGS, LONG]) {
    const { settings } = parseGlobalSettings(
      { 'proxy-stream-timeout': hostile, 'proxy-stream-next-upstream-tries': hostile, 'proxy-stream-responses': hostile },
      { cpus: 2 },
    );
    const conf = renderNginxConf(
      { ...configuration({ servers: [server('_', [])] }), settings, stream: { ...NO_STREAM, services } },
      context,
    );
    await nginxSyntaxCheck(conf, context);
  }
});

test('the renderer refuses a stream service no model makes', () => {
  const good: StreamService = {
    port: 9000,
    protocol: 'TCP',
    upstreamName: 'tcp-app-echo-echo',
    service: { namespace: 'app', name: 'echo', port: 'echo' },
    proxyProtocol: { decode: false, encode: false },
    endpoints: [{ address: '10.0.0.1', port: 7000 }],
  };
  const render = (service: StreamService) =>
    renderNginxConf({ ...configuration({ servers: [server('_', [])] }), stream: { ...NO_STREAM, services: [service] } }, context);
  assert.ok(render(good).includes('tcp-app-echo-echo'));
  for (const hostile of [...HOSTILE_STRINGS, LONG]) {
    assert.throws(() => render({ ...good, upstreamName: hostile }), /invalid|not a stream upstream name/, hostile);
    assert.throws(() => render({ ...good, upstreamName: `tcp-${hostile}` }), /invalid|not a stream upstream name/, hostile);
    assert.throws(() => render({ ...good, endpoints: [{ address: hostile, port: 7000 }] }), /invalid/, hostile);
  }
  for (const port of [0, 65536, 1.5, -1]) {
    assert.throws(() => render({ ...good, port }), /invalid|port/, String(port));
    assert.throws(() => render({ ...good, endpoints: [{ address: '10.0.0.1', port }] }), /invalid|port/, String(port));
  }
});
