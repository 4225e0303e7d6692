import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { HOSTILE_STRINGS } from '../../dataplane/nginx/render/hostileValues.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test("ingress-nginx's defaults: multi_accept on, derived open files, no CPU binding, no debug connections", () => {
  assert.equal(DEFAULT_SETTINGS.enableMultiAccept, true);
  assert.equal(DEFAULT_SETTINGS.maxWorkerOpenFiles, 0);
  assert.deepEqual(DEFAULT_SETTINGS.workerCpuAffinity, []);
  assert.deepEqual(DEFAULT_SETTINGS.debugConnections, []);
});

test('valid values', () => {
  const { settings, problems, unknownKeys } = parse({
    'enable-multi-accept': 'false',
    'max-worker-open-files': '1024',
    'worker-cpu-affinity': '0001 0010  0100 1000',
    'debug-connections': '10.0.0.0/8, 127.0.0.1,::1',
  });
  assert.deepEqual([problems, unknownKeys], [[], []]);
  assert.equal(settings.enableMultiAccept, false);
  assert.equal(settings.maxWorkerOpenFiles, 1024);
  assert.deepEqual(settings.workerCpuAffinity, ['0001', '0010', '0100', '1000']);
  assert.deepEqual(settings.debugConnections, ['10.0.0.0/8', '127.0.0.1', '::1']);
  assert.deepEqual(parse({ 'worker-cpu-affinity': 'auto' }).settings.workerCpuAffinity, ['auto']);
  assert.deepEqual(parse({ 'worker-cpu-affinity': 'auto 1010' }).settings.workerCpuAffinity, ['auto', '1010']);
  assert.deepEqual(parse({ 'worker-cpu-affinity': '' }).settings.workerCpuAffinity, []);
  assert.equal(parse({ 'max-worker-open-files': '1048576' }).settings.maxWorkerOpenFiles, 1048576);
  assert.deepEqual(parse({ 'debug-connections': '' }).settings.debugConnections, []);
});

test('invalid values keep the default and are reported', () => {
  for (const [key, value] of [
    ['enable-multi-accept', 'on'],
    ['max-worker-open-files', '1023'],
    ['max-worker-open-files', '1048577'],
    ['max-worker-open-files', '-1'],
    ['worker-cpu-affinity', 'auto auto'],
    ['worker-cpu-affinity', 'auto 01 10'],
    ['worker-cpu-affinity', '0000'],
    ['worker-cpu-affinity', 'auto 0000'],
    ['worker-cpu-affinity', '0102'],
    ['worker-cpu-affinity', '0x3'],
    ['worker-cpu-affinity', '1'.repeat(1025)],
    ['debug-connections', 'localhost'],
    ['debug-connections', '10.0.0.0/33'],
    ['debug-connections', 'unix:'],
    ['debug-connections', '10.0.0.1,,10.0.0.2'],
    ['debug-connections', 'fe80::1%eth0'],
  ] as const) {
    const { settings, problems } = parse({ [key]: value });
    assert.equal(problems.length, 1, `${key}: ${value}`);
    assert.ok(problems[0]?.startsWith(`ConfigMap key ${key}:`), problems[0]);
    assert.deepEqual(settings, DEFAULT_SETTINGS, `${key}: ${value}`);
  }
});

test('hostile strings are refused', () => {
  for (const value of HOSTILE_STRINGS) {
    for (const key of ['worker-cpu-affinity', 'debug-connections', 'max-worker-open-files']) {
      const { settings, problems } = parse({ [key]: value });
      assert.equal(problems.length, 1, `${key}: ${value}`);
      assert.deepEqual(settings, DEFAULT_SETTINGS);
    }
  }
});
