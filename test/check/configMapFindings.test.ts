// The ConfigMap as `portico check` reports it: the controller's own parse, each
// ignored key classified by ingress-nginx's list of keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readConfigMap } from '../../src/check/configMapFindings.js';
import { INGRESS_NGINX_CONFIGMAP_KEYS } from '../../src/model/settings/ingressNginxConfigMapKeys.js';
import { FIELD_BY_KEY, parseGlobalSettings } from '../../src/model/settings/parseGlobalSettings.js';

const ENVIRONMENT = { cpus: 2 };
const UNREAD = INGRESS_NGINX_CONFIGMAP_KEYS.filter((entry) => !FIELD_BY_KEY.has(entry.key));
const REFUSED = UNREAD.find((entry) => entry.refusedBecause !== undefined);
const NOT_IMPLEMENTED = UNREAD.find((entry) => entry.refusedBecause === undefined && entry.missingModule === undefined);

test('the settings and refused values are the controller parse of the same data', () => {
  const data = { 'keep-alive': 'forever', 'proxy-body-size': '8m' };
  const { settings, finding } = readConfigMap('ns/cfg', { metadata: { name: 'cfg', namespace: 'ns' }, data }, ENVIRONMENT);
  const parsed = parseGlobalSettings(data, ENVIRONMENT);
  assert.deepEqual(settings, parsed.settings);
  assert.equal(settings.proxyBodySize, '8m');
  assert.deepEqual(finding, { name: 'ns/cfg', found: true, refusedValues: parsed.problems, ignoredKeys: [] });
  assert.equal(finding.refusedValues.length, 1);
});

test('no --configmap, or one that is not there', () => {
  assert.deepEqual(readConfigMap(undefined, undefined, ENVIRONMENT).finding, {
    name: null,
    found: false,
    refusedValues: [],
    ignoredKeys: [],
  });
  assert.equal(readConfigMap('ns/cfg', undefined, ENVIRONMENT).finding.found, false);
});

test('a key of a module Debian lacks, and a key ingress-nginx does not have', () => {
  const data = { 'otlp-collector-host': 'otel', 'no-such-key': '1' };
  const { finding } = readConfigMap('ns/cfg', { metadata: { name: 'cfg', namespace: 'ns' }, data }, ENVIRONMENT);
  assert.deepEqual(finding.ignoredKeys, [
    { key: 'no-such-key', kind: 'unknown', reason: 'not a ConfigMap key of ingress-nginx v1.15.1; ignored' },
    {
      key: 'otlp-collector-host',
      kind: 'missing-module',
      reason: "Debian 12's nginx has no OpenTelemetry module, so Portico cannot apply it; ignored",
    },
  ]);
});

test('a key Portico refuses on purpose says why', { skip: REFUSED === undefined && 'no key is refused on purpose yet' }, () => {
  const key = REFUSED?.key ?? '';
  const { finding } = readConfigMap('ns/cfg', { metadata: { name: 'cfg', namespace: 'ns' }, data: { [key]: 'x' } }, ENVIRONMENT);
  assert.deepEqual(finding.ignoredKeys, [{ key, kind: 'refused', reason: REFUSED?.refusedBecause }]);
});

test('an ingress-nginx key not implemented yet', { skip: NOT_IMPLEMENTED === undefined && 'every key is implemented' }, () => {
  const key = NOT_IMPLEMENTED?.key ?? '';
  const { finding } = readConfigMap('ns/cfg', { metadata: { name: 'cfg', namespace: 'ns' }, data: { [key]: 'x' } }, ENVIRONMENT);
  assert.equal(finding.ignoredKeys.length, 1);
  assert.equal(finding.ignoredKeys[0]?.kind, 'not-implemented');
  assert.match(finding.ignoredKeys[0]?.reason ?? '', /^not implemented by Portico yet; ignored/);
});
