import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBatch, nginxNumber, RECORD_FIELDS } from '../../src/metrics/requestBatch.js';

const TOKEN = '12345';
const RECORD = ['app.example.com', 'shop', 'web', 'web', '', '/api', 'GET', '200', '120', '0.004', '512', '0.001', '0.003', '0.003'];

const batch = (fields: unknown, token = TOKEN): string => `${token}\n${JSON.stringify(fields)}`;

describe('decodeBatch', () => {
  it('reads the records in RECORD_FIELDS order, numbers parsed', () => {
    const decoded = decodeBatch(batch([...RECORD, ...RECORD.map((field, i) => (i === 7 ? '503' : field))]), TOKEN);
    assert.ok(decoded.ok);
    assert.equal(RECORD_FIELDS.length, RECORD.length);
    assert.equal(decoded.records.length, 2);
    assert.deepEqual(decoded.records[0], {
      host: 'app.example.com',
      namespace: 'shop',
      ingress: 'web',
      service: 'web',
      canary: '',
      path: '/api',
      method: 'GET',
      status: '200',
      requestLength: 120,
      requestTime: 0.004,
      bytesSent: 512,
      upstreamConnectTime: 0.001,
      upstreamHeaderTime: 0.003,
      upstreamResponseTime: 0.003,
    });
    assert.equal(decoded.records[1]?.status, '503');
  });

  it('refuses a batch without the token, whatever follows', () => {
    for (const payload of [batch(RECORD, '999'), JSON.stringify(RECORD), '', '\n[]', `${TOKEN}[]`]) {
      assert.deepEqual(decodeBatch(payload, TOKEN).ok, false, payload);
    }
  });

  it('refuses what is not a whole number of records in a JSON array', () => {
    for (const payload of [`${TOKEN}\n{"a":1}`, `${TOKEN}\n[1,2`, `${TOKEN}\nnull`, batch(RECORD.slice(1)), batch('x')]) {
      const decoded = decodeBatch(payload, TOKEN);
      assert.equal(decoded.ok, false, payload);
    }
  });

  it('takes the status and the request time as numbers too (the Lua hook sends them so)', () => {
    const decoded = decodeBatch(batch(RECORD.map((field, i) => (i === 7 ? 404 : i === 9 ? 0.25 : i === 10 ? -1 : field))), TOKEN);
    assert.ok(decoded.ok);
    assert.equal(decoded.records[0]?.status, '404');
    assert.equal(decoded.records[0]?.requestTime, 0.25);
    assert.equal(decoded.records[0]?.bytesSent, undefined);
  });

  it('skips records with a field that is not a string or a number, or is absurdly long, and keeps the others', () => {
    const bad = [
      RECORD.map((field, i) => (i === 1 ? true : field)),
      RECORD.map((field, i) => (i === 2 ? [] : field)),
      RECORD.map((field, i) => (i === 3 ? null : field)),
      RECORD.map((field, i) => (i === 5 ? { path: '/' } : field)),
      RECORD.map((field, i) => (i === 0 ? 'h'.repeat(5000) : field)),
    ];
    const decoded = decodeBatch(batch([...bad.flat(), ...RECORD]), TOKEN);
    assert.ok(decoded.ok);
    assert.equal(decoded.malformed, 5);
    assert.equal(decoded.records.length, 1);
  });

  it('survives a huge well-formed batch', () => {
    const fields = Array.from({ length: 20_000 }, () => RECORD).flat();
    const decoded = decodeBatch(batch(fields), TOKEN);
    assert.ok(decoded.ok);
    assert.equal(decoded.records.length, 20_000);
  });
});

describe('nginxNumber', () => {
  it('reads one value, or the sum of every upstream attempt', () => {
    assert.equal(nginxNumber('0.004'), 0.004);
    assert.equal(nginxNumber('512'), 512);
    assert.equal(nginxNumber('0.004, 0.002'), 0.006);
    assert.equal(nginxNumber('0.004, - : 0.001'), 0.005);
  });

  it('is undefined when nginx had no value', () => {
    for (const text of ['', '-', '- , -', 'abc', '1e3', '-1', 'NaN', 'Infinity']) assert.equal(nginxNumber(text), undefined, text);
  });
});
