// Issue 18's comparison: Portico's nginx.conf beside the one ingress-nginx
// would write for the same cluster (ingressNginxShapedConf.ts), each loaded by
// `nginx -t` one right after the other. Both load Portico's Lua module (its
// build of Debian's, luaModule.ts), so the files' shapes are what differs; the
// shaped file loads once more with Debian's module, the closest Debian 12 has
// to what ingress-nginx users run (its OpenResty 1.25+ and newer
// lua-nginx-module, which is not in Debian and was not measured).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEBIAN_LUA_MODULE } from '../../src/dataplane/nginx/luaModule.js';
import type { RenderContext } from '../../src/dataplane/nginx/render/renderContext.js';
import type { Configuration } from '../../src/model/types.js';
import { writeIngressNginxLuaStubs } from './ingressNginxLuaStubs.js';
import { ingressNginxShapedConf } from './ingressNginxShapedConf.js';
import { figure, printTable } from './table.js';

export interface LoadCost {
  ms: number;
  /** User plus system CPU and peak resident memory of `nginx -t`; undefined without GNU time. */
  cpuMs: number | undefined;
  maxRssBytes: number | undefined;
}

export interface ConfShape {
  bytes: number;
  lines: number;
  /** `location` blocks, counted alike in both files. */
  locationBlocks: number;
  servers: number;
}

export interface ShapedComparison {
  ingresses: number;
  portico: ConfShape & { load: LoadCost };
  shaped: ConfShape & { load: LoadCost; loadDebianModule: LoadCost };
}

export function confShape(conf: string): ConfShape {
  return {
    bytes: Buffer.byteLength(conf),
    lines: conf.split('\n').length - 1,
    locationBlocks: conf.match(/^\s*location /gm)?.length ?? 0,
    servers: conf.match(/^\s*server \{/gm)?.length ?? 0,
  };
}

/**
 * Loads Portico's `conf`, then the ingress-nginx-shaped file for the same
 * `configuration`, with `nginxTest` (the benchmark's `nginx -t` in its prefix,
 * whose context both files share: ports, logs, temp folders, fake certificate).
 */
export async function measureShapedComparison(
  ingresses: number,
  configuration: Configuration,
  conf: string,
  context: RenderContext,
  prefix: string,
  nginxTest: (conf: string) => Promise<LoadCost>,
): Promise<ShapedComparison> {
  const luaDir = join(prefix, 'ingress-nginx-lua');
  await writeIngressNginxLuaStubs(luaDir);
  const shaped = (luaModuleFile: string): string =>
    ingressNginxShapedConf(configuration, { context: { ...context, luaModuleFile }, luaDir, workerProcesses: availableParallelism() });
  const porticoLoad = await nginxTest(conf);
  const shapedConf = shaped(context.luaModuleFile);
  const shapedLoad = await nginxTest(shapedConf);
  const loadDebianModule = await nginxTest(shaped(DEBIAN_LUA_MODULE));
  return {
    ingresses,
    portico: { ...confShape(conf), load: porticoLoad },
    shaped: { ...confShape(shapedConf), load: shapedLoad, loadDebianModule },
  };
}

export function printShapedComparison(comparisons: readonly ShapedComparison[]): void {
  const mib = (bytes: number): string => figure(bytes / (1024 * 1024), 1);
  const ratio = (portico: number | undefined, shaped: number | undefined): string =>
    portico === undefined || shaped === undefined ? 'n/a' : figure(portico / shaped, 2);
  const load = (cost: LoadCost): string =>
    `${figure(cost.ms)} (${cost.cpuMs === undefined ? 'n/a' : figure(cost.cpuMs)}; ${cost.maxRssBytes === undefined ? 'n/a' : mib(cost.maxRssBytes)})`;
  process.stdout.write(
    "\nPortico's nginx.conf beside the ingress-nginx-shaped one (bench/support/ingressNginxShapedConf.ts), nginx -t one after the other\n\n",
  );
  printTable(
    ['quantity', ...comparisons.flatMap((c) => [`Portico, ${figure(c.ingresses)}`, `shaped, ${figure(c.ingresses)}`, 'Portico / shaped'])],
    [
      [
        'nginx.conf (MiB)',
        ...comparisons.flatMap((c) => [mib(c.portico.bytes), mib(c.shaped.bytes), ratio(c.portico.bytes, c.shaped.bytes)]),
      ],
      ['lines', ...comparisons.flatMap((c) => [figure(c.portico.lines), figure(c.shaped.lines), ratio(c.portico.lines, c.shaped.lines)])],
      [
        'server / location blocks',
        ...comparisons.flatMap((c) => [
          `${figure(c.portico.servers)} / ${figure(c.portico.locationBlocks)}`,
          `${figure(c.shaped.servers)} / ${figure(c.shaped.locationBlocks)}`,
          ratio(c.portico.locationBlocks, c.shaped.locationBlocks),
        ]),
      ],
      [
        "nginx -t, Portico's Lua module: ms (CPU ms; peak RSS MiB)",
        ...comparisons.flatMap((c) => [load(c.portico.load), load(c.shaped.load), ratio(c.portico.load.ms, c.shaped.load.ms)]),
      ],
      ['nginx -t CPU, Portico / shaped', ...comparisons.flatMap((c) => ['', '', ratio(c.portico.load.cpuMs, c.shaped.load.cpuMs)])],
      [
        'nginx -t peak RSS, Portico / shaped',
        ...comparisons.flatMap((c) => ['', '', ratio(c.portico.load.maxRssBytes, c.shaped.load.maxRssBytes)]),
      ],
      [
        "nginx -t of the shaped file, Debian's Lua module",
        ...comparisons.flatMap((c) => ['', load(c.shaped.loadDebianModule), ratio(c.portico.load.ms, c.shaped.loadDebianModule.ms)]),
      ],
    ],
  );
}
