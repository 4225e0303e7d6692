// Hostile values in the stream block's keys (log-format-stream,
// stream-access-log-path): see renderNginxConf.hostile.test.ts. The ConfigMap
// is admin-owned, yet each value is refused by its parser (the default kept)
// or stays one argument of its directive, which nginx -t accepts.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildNginxConf, renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { parseGlobalSettings } from '../../../../src/model/settings/parseGlobalSettings.js';
import { DEFAULT_LOG_FORMAT_STREAM } from '../../../../src/model/settings/keys/loggingSettings.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import { configuration, location, server } from './fixtures.js';
import { context, HOSTILE_STRINGS, LONG, web } from './hostileValues.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf, type ParsedDirective } from './nginxConfTokenizer.js';
import type { ConfigNode } from '../../../../src/dataplane/nginx/render/configBuilder.js';
import { argsOf, expectedWords, only, skeleton } from './parsedTree.js';

/** A stream server of the ConfigMap's, so that the block exists. */
const STREAM_SNIPPET = 'server {\n    listen 127.0.0.1:19011;\n    return "x";\n}';

const VALUES = [
  ...HOSTILE_STRINGS,
  ...HOSTILE_STRINGS.map((value) => `/${value}`),
  ...HOSTILE_STRINGS.map((value) => `$remote_addr ${value}`),
  `/${LONG}`,
  LONG,
  '$remote_addr" ; access_log /tmp/x',
  "$remote_addr'; error_log /tmp/x",
  '$proxy_upstream_name}; map "" $x {',
];

const withSettings = (settings: Partial<GlobalSettings>) =>
  configuration({
    servers: [server('_', []), server('a.example', [location('/', 'prefix', web.name)])],
    backends: [web],
    settings: { ...settings, allowSnippetAnnotations: true, streamSnippet: STREAM_SNIPPET },
  });

/** The builder's nodes without the snippet's verbatim lines, which have no expected words. */
function withoutVerbatim(nodes: readonly ConfigNode[]): ConfigNode[] {
  return nodes.flatMap((node) => {
    if (node.kind === 'verbatim') return [];
    return node.kind === 'directive' && node.children !== undefined ? [{ ...node, children: withoutVerbatim(node.children) }] : [node];
  });
}

/** The parsed tree without the snippet's server, the stream block's last. */
function withoutSnippet(tree: ParsedDirective[]): ParsedDirective[] {
  return tree.map((node) => (node.name === 'stream' ? { ...node, children: node.children?.slice(0, -1) } : node));
}

let logDir: string;
before(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'portico-hostile-stream-'));
});
after(() => rm(logDir, { recursive: true, force: true }));

test('each is refused by its parser, or renders as one argument that nginx accepts', { skip: missingNginx }, async () => {
  let rendered = 0;
  for (const key of ['log-format-stream', 'stream-access-log-path']) {
    for (const hostile of VALUES) {
      const value = key.endsWith('-path') && hostile.startsWith('/') ? `${logDir}${hostile}` : hostile;
      const { settings, problems } = parseGlobalSettings({ [key]: value }, { cpus: 2 });
      const label = `${key}: ${JSON.stringify(value.slice(0, 80))}`;
      if (problems.length > 0) {
        assert.equal(settings.logFormatStream, DEFAULT_LOG_FORMAT_STREAM, label);
        assert.equal(settings.streamAccessLogPath, undefined, label);
        continue;
      }
      rendered++;
      const config = withSettings(settings);
      const tree = parseNginxConf(renderNginxConf(config, context));
      assert.deepEqual(withoutSnippet(tree), expectedWords(withoutVerbatim(buildNginxConf(config, context))), label);
      const stream = only(tree, 'stream');
      if (key === 'log-format-stream') assert.deepEqual(argsOf(stream, 'log_format'), [['log_stream', value]], label);
      else assert.deepEqual(argsOf(stream, 'access_log'), [[value, 'log_stream']], label);
      const benign = withSettings({
        ...settings,
        logFormatStream: settings.logFormatStream.includes('proxy_upstream_name') ? '$proxy_upstream_name' : 'b',
        streamAccessLogPath: settings.streamAccessLogPath && '/b',
      });
      assert.deepEqual(skeleton(tree), skeleton(parseNginxConf(renderNginxConf(benign, context))), label);
      await nginxSyntaxCheck(renderNginxConf(config, context), context);
    }
  }
  // Some hostile-looking values are valid (a path with unicode, a format with "#" or "{"): they did reach nginx -t.
  assert.ok(rendered > 0);
});
