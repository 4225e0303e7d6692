// Golden files: the rendering of representative configurations, reviewed as
// text. UPDATE_GOLDEN=1 rewrites them; every one must pass `nginx -t` (with
// the repository's lua/ as luaDir, the only difference from the file).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { LUA_DIR } from './fixtures.js';
import { GOLDEN_LUA_DIR, GOLDEN_SCENARIOS } from './goldenScenarios.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';
import { parseNginxConf } from './nginxConfTokenizer.js';

const updateGolden = process.env.UPDATE_GOLDEN === '1';
const goldenFile = (name: string): URL => new URL(`golden/${name}.conf`, import.meta.url);

for (const scenario of GOLDEN_SCENARIOS) {
  describe(`golden ${scenario.name}`, () => {
    const rendered = renderNginxConf(scenario.configuration, scenario.context);

    test('matches the golden file', async () => {
      if (updateGolden) await writeFile(goldenFile(scenario.name), rendered);
      const golden = await readFile(goldenFile(scenario.name), 'utf8');
      assert.equal(rendered, golden, `rendering differs from golden/${scenario.name}.conf (UPDATE_GOLDEN=1 rewrites it)`);
    });

    test('is deterministic and parses', () => {
      assert.equal(renderNginxConf(scenario.configuration, scenario.context), rendered);
      assert.ok(parseNginxConf(rendered).length > 0);
    });

    test('passes nginx -t', { skip: missingNginx }, async () => {
      const context = { ...scenario.context, luaDir: LUA_DIR };
      const runnable = renderNginxConf(scenario.configuration, context);
      const packagePath = (dir: string): string => `lua_package_path "${dir.replace(/\/$/, '')}/?.lua;;";`;
      assert.equal(runnable, rendered.replace(packagePath(GOLDEN_LUA_DIR), packagePath(LUA_DIR)));
      await nginxSyntaxCheck(runnable, context);
    });
  });
}
