// enable-access-log-for-default-backend: the catch-all's own default backend
// writes no access log line unless the ConfigMap asks (ingress-nginx's
// controller.go gives that location Logs.Access from the key); a host's
// generated root and an Ingress claiming the catch-all log as usual.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../src/model/settings/globalSettings.js';
import { accepted, build, ingress, service, world } from './modelTestSupport.js';

const lookup = world([service('default-http', [{ port: 8080 }])]);
const rootLogs = (result: ReturnType<typeof build>, host: string) =>
  result.configuration.servers.find((s) => s.hostname === host)?.locations.find((l) => l.path === '/')?.annotations.logs;

test("by default the catch-all's default backend is not logged; a host falling back to it is", () => {
  const result = build([accepted(ingress('a', 'h', [['/x', 'Prefix', 'web']]))], lookup, { defaultBackendService: 'app/default-http' });
  assert.deepEqual(rootLogs(result, '_'), { accessLog: false, rewriteLog: false });
  assert.equal(rootLogs(result, 'h'), undefined);
});

test('enable-access-log-for-default-backend: "true" logs it as any location', () => {
  const settings = { ...DEFAULT_SETTINGS, enableAccessLogForDefaultBackend: true };
  const result = build([], lookup, { defaultBackendService: 'app/default-http', settings });
  assert.equal(rootLogs(result, '_'), undefined);
});

test('an Ingress that claims the catch-all with its defaultBackend logs as its annotations say', () => {
  const claiming = ingress('claims', undefined, [], { defaultBackend: { service: { name: 'one', port: { number: 80 } } } });
  assert.equal(rootLogs(build([accepted(claiming)], lookup), '_'), undefined);
});
