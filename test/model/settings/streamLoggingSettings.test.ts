// The stream block's logging keys as parseGlobalSettings reads them:
// disable-stream-access-log (config.go's, not in configmap.md), and the log
// format bounds log-format-stream shares with log-format-upstream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_LOG_FORMAT_UPSTREAM } from '../../../src/model/settings/globalSettings.js';
import { DEFAULT_LOG_FORMAT_STREAM } from '../../../src/model/settings/keys/loggingSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });

test('disable-stream-access-log: a Go boolean, false by default; a bad value keeps the default with a problem', () => {
  assert.equal(parse({}).settings.disableStreamAccessLog, false);
  for (const yes of ['true', '1', 'T', 'TRUE'])
    assert.equal(parse({ 'disable-stream-access-log': yes }).settings.disableStreamAccessLog, true);
  assert.equal(parse({ 'disable-stream-access-log': 'false' }).settings.disableStreamAccessLog, false);
  for (const bad of ['yes', 'on', '"; access_log /tmp/x;', '']) {
    const { settings, problems } = parse({ 'disable-stream-access-log': bad });
    assert.equal(settings.disableStreamAccessLog, false, bad);
    assert.equal(problems.length, 1, bad);
  }
});

test("log-format-stream may name ingress-nginx's $proxy_upstream_name (set by each TCP/UDP server)", () => {
  const format = '[$remote_addr] [$proxy_upstream_name] ${proxy_upstream_name} $upstream_addr';
  assert.equal(parse({ 'log-format-stream': format }).settings.logFormatStream, format);
  assert.equal(parse({ 'log-format-stream': '$proxy_upstream_names' }).settings.logFormatStream, DEFAULT_LOG_FORMAT_STREAM);
});

test('a log format must fit one nginx argument once quoted: the longest passes, one byte more (or its quotes escaped) is refused', () => {
  for (const [key, fallback] of [
    ['log-format-stream', DEFAULT_LOG_FORMAT_STREAM],
    ['log-format-upstream', DEFAULT_LOG_FORMAT_UPSTREAM],
  ] as const) {
    const field = key === 'log-format-stream' ? 'logFormatStream' : 'logFormatUpstream';
    const longest = `$remote_addr ${'x'.repeat(3998 - '$remote_addr '.length)}`;
    assert.equal(parse({ [key]: longest }).settings[field], longest, key);
    for (const tooLong of [`${longest}x`, `"${longest.slice(1)}`, 'é'.repeat(2000)]) {
      const { settings, problems } = parse({ [key]: tooLong });
      assert.equal(settings[field], fallback, key);
      assert.match(problems.join('\n'), /at most 3998 bytes once quoted/, key);
    }
  }
});
