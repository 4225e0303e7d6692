// Hostile values in the logging keys (paths, access-log-params,
// skip-access-log-urls, syslog-host): see renderNginxConf.hostile.test.ts.
// The ConfigMap is admin-owned, yet each value is refused by its parser or
// stays one argument of its directive; the renderer alone, given values no
// parser would pass, writes them as one argument or refuses to render.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { context, HOSTILE_STRINGS, LONG, web } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import { argsOf, expectedWords, only, skeleton } from './parsedTree.js';

const KEYS = ['access-log-path', 'http-access-log-path', 'error-log-path', 'access-log-params', 'skip-access-log-urls', 'syslog-host'];

/** Each hostile string as written, and as a path or URL (a leading "/"). */
const VALUES = [...HOSTILE_STRINGS, ...HOSTILE_STRINGS.map((value) => `/${value}`), `/${LONG}`];

function withSettings(settings: Partial<GlobalSettings>): Configuration {
  return configuration({ servers: [server('_', []), server('a.example', [location('/', 'prefix', web.name)])], backends: [web], settings });
}

/** The tree with the URL entries of the $loggable map named URL (their names are the URLs' regexes). */
function maskUrls(tree: ParsedDirective[]): ParsedDirective[] {
  const masked = (node: ParsedDirective): ParsedDirective =>
    node.name === 'map' && node.args[1] === '$loggable'
      ? { ...node, children: node.children?.map((entry) => (entry.name === 'default' ? entry : { ...entry, name: 'URL' })) }
      : { ...node, children: node.children?.map(masked) };
  return tree.map(masked);
}

describe('hostile logging values', () => {
  // nginx -t creates the log files a path names: inside this folder, never elsewhere.
  let logDir: string;
  before(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'portico-hostile-logs-'));
  });
  after(() => rm(logDir, { recursive: true, force: true }));
  test(
    'each is refused by its parser (the default kept), or renders as one argument that nginx accepts',
    { skip: missingNginx },
    async () => {
      for (const key of KEYS) {
        // syslog-host only with enable-syslog; the paths and parameters only without it (syslog takes neither).
        const syslog: Record<string, string> = key === 'syslog-host' ? { 'enable-syslog': 'true' } : {};
        for (const hostile of VALUES) {
          const value = key.endsWith('-path') && hostile.startsWith('/') ? `${logDir}${hostile}` : hostile;
          const { settings, problems } = parseGlobalSettings({ [key]: value, ...syslog }, { cpus: 2 });
          if (problems.length > 0) continue;
          const config = withSettings(settings);
          const tree = parseNginxConf(renderNginxConf(config, context));
          assert.deepEqual(tree, expectedWords(buildNginxConf(config, context)), `${key}: ${JSON.stringify(value)}`);
          // The structure of a benign value of the same shape: as many URLs, or a benign path or host.
          const urls = [...new Set(settings.skipAccessLogUrls)].map((_, index) => `/benign${index}`);
          const benign = withSettings({
            ...settings,
            skipAccessLogUrls: urls,
            accessLogPath: '/b',
            httpAccessLogPath: settings.httpAccessLogPath && '/b',
            errorLogPath: settings.errorLogPath && '/b',
            syslogHost: settings.syslogHost && 'b',
          });
          assert.deepEqual(
            skeleton(maskUrls(tree)),
            skeleton(maskUrls(parseNginxConf(renderNginxConf(benign, context)))),
            `${key}: ${JSON.stringify(value)}`,
          );
          await nginxSyntaxCheck(renderNginxConf(config, context), context);
        }
      }
    },
  );

  test('every hostile URL of skip-access-log-urls that parses is one exact-match map entry', () => {
    const urls = VALUES.filter(
      (value) => parseGlobalSettings({ 'skip-access-log-urls': value.replaceAll(',', '') }, { cpus: 2 }).problems.length === 0,
    );
    assert.ok(urls.length >= 4, 'the "/..." strings without spaces are request targets');
    const { settings } = parseGlobalSettings({ 'skip-access-log-urls': urls.map((url) => url.replaceAll(',', '')).join(',') }, { cpus: 2 });
    const http = only(parseNginxConf(renderNginxConf(withSettings(settings), context)), 'http');
    const map = http.children?.find((node) => node.name === 'map' && node.args[1] === '$loggable');
    const entries = map?.children ?? [];
    assert.equal(entries.length, new Set(settings.skipAccessLogUrls).size + 1);
    for (const [index, url] of [...new Set(settings.skipAccessLogUrls)].entries()) {
      const regex = entries[index]?.name ?? '';
      assert.ok(regex.startsWith('~'), regex);
      assert.ok(new RegExp(regex.slice(1)).test(url), `${regex} matches ${JSON.stringify(url)}`);
      assert.ok(!new RegExp(regex.slice(1)).test(`${url}x`), `${regex} matches only ${JSON.stringify(url)}`);
      assert.deepEqual(entries[index]?.args, ['0']);
    }
    assert.deepEqual(argsOf(http, 'access_log')[0]?.at(-1), 'if=$loggable');
  });

  test('the renderer alone: a hostile path is one argument or refused, a hostile syslog host refused', () => {
    for (const value of VALUES) {
      for (const field of ['accessLogPath', 'httpAccessLogPath', 'errorLogPath'] as const) {
        let rendered: string;
        try {
          rendered = renderNginxConf(withSettings({ [field]: value }), context);
        } catch (error) {
          assert.match(String(error), /unsupported file path|argument too long|NUL/, `${field}: ${JSON.stringify(value)}`);
          continue;
        }
        const tree = parseNginxConf(rendered);
        const args = field === 'errorLogPath' ? only(tree, 'error_log').args : argsOf(only(tree, 'http'), 'access_log')[0];
        assert.equal(args?.[0], value, `${field}: ${JSON.stringify(value)}`);
      }
      assert.throws(
        () => renderNginxConf(withSettings({ enableSyslog: true, syslogHost: value }), context),
        /invalid host/,
        JSON.stringify(value),
      );
    }
  });
});
