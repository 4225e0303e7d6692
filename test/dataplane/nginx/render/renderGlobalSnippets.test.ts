// The ConfigMap's snippets as rendered: each where ingress-nginx writes it,
// every line traced to the settings (a refusal sends the ConfigMap back to the
// settings nginx last accepted), accepted by nginx -t; nothing without them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { originOfLine } from '../../../../src/dataplane/nginx/render/configOrigins.js';
import { renderNginxConf, renderTracedNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import type { GlobalSettings } from '../../../../src/model/settings/globalSettings.js';
import type { Configuration } from '../../../../src/model/types.js';
import { configuration, location, server } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { argsOf, locationOf, only } from './parsedTree.js';
import { context, serverMatching, web } from './hostileValues.js';

const SNIPPETS: Partial<GlobalSettings> = {
  mainSnippet: 'worker_rlimit_nofile 4096;',
  httpSnippet: 'map $http_x_probe $probe_seen {\n    default "no";\n    "yes" "yes";\n}',
  serverSnippet: 'add_header X-Global-Server "on" always;\n\tadd_header X-Global-Server-2 "on" always;',
  locationSnippet: 'add_header X-Global-Location $probe_seen always;',
};

function scenario(settings: Partial<GlobalSettings>): Configuration {
  const app = server('app.example.com', [location('/', 'prefix', web.name), location('/api', 'prefix', web.name)]);
  return configuration({ servers: [server('_', []), app], backends: [web], settings });
}

describe('every global snippet', () => {
  const { config, origins } = renderTracedNginxConf(scenario(SNIPPETS), context);
  const tree = parseNginxConf(config.bytes.toString());

  test('main-snippet in the main context, http-snippet in the http block', () => {
    assert.deepEqual(argsOf({ name: '', args: [], children: tree }, 'worker_rlimit_nofile'), [['4096']]);
    const http = only(tree, 'http');
    assert.ok(http.children?.some((node) => node.name === 'map' && node.args[1] === '$probe_seen'));
  });

  test("server-snippet at the end of every host's server; location-snippet in each of its locations", () => {
    for (const host of ['app.example.com', '_']) {
      const block = serverMatching(tree, host);
      const children = block.children ?? [];
      assert.deepEqual(
        children.slice(-2).map((node) => [node.name, ...node.args]),
        [
          ['add_header', 'X-Global-Server', 'on', 'always'],
          ['add_header', 'X-Global-Server-2', 'on', 'always'],
        ],
      );
    }
    const app = serverMatching(tree, 'app.example.com');
    for (const path of [['/'], ['=', '/api'], ['/api/']]) {
      const found = locationOf(app, ...path);
      assert.deepEqual(argsOf(found, 'add_header'), [['X-Global-Location', '$probe_seen', 'always']], path.join(' '));
    }
  });

  test('every snippet line is traced to the settings', () => {
    const lines = config.bytes.toString().split('\n');
    const snippetLines = [SNIPPETS.mainSnippet, SNIPPETS.httpSnippet, SNIPPETS.serverSnippet, SNIPPETS.locationSnippet]
      .flatMap((snippet) => (snippet ?? '').split('\n'))
      .map((line) => line.trim());
    lines.forEach((line, index) => {
      if (snippetLines.includes(line.trim()) && line.trim() !== '}') {
        assert.deepEqual(originOfLine(config, origins, index + 1), { kind: 'settings' }, line);
      }
    });
  });

  test('passes nginx -t', { skip: missingNginx }, async () => {
    await nginxSyntaxCheck(config.bytes.toString(), context);
  });
});

test('without snippets, none of their lines', () => {
  const rendered = renderNginxConf(scenario({}), context);
  for (const marker of ['worker_rlimit_nofile', '$probe_seen', 'X-Global-Server', 'X-Global-Location'])
    assert.ok(!rendered.includes(marker), marker);
});

test('modsecurity-snippet replaces modsecurity.conf in the http block, with enable-modsecurity only', () => {
  const rules = 'SecRuleEngine On\nSecRule REQUEST_URI "@contains attack" "id:4711,phase:1,deny,status:403"';
  const http = (settings: Partial<GlobalSettings>) => only(parseNginxConf(renderNginxConf(scenario(settings), context)), 'http');
  assert.deepEqual(argsOf(http({ enableModsecurity: true, modsecuritySnippet: rules }), 'modsecurity_rules'), [[rules]]);
  assert.deepEqual(argsOf(http({ enableModsecurity: true, modsecuritySnippet: rules }), 'modsecurity_rules_file'), []);
  assert.deepEqual(argsOf(http({ modsecuritySnippet: rules }), 'modsecurity_rules'), []);
});
