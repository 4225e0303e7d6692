import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { silentLogger } from '../../../src/log/logger.js';
import { objectKey, type ConfigMap, type KubeObject, type Service } from '../../../src/kube/objects.js';
import type { ObjectSink } from '../../../src/store/objectSink.js';
import { ManifestSource, type ManifestSourceOptions } from '../../../src/sources/manifests/manifestSource.js';
import { eventually } from '../../support/eventually.js';

/** Keeps the latest complete set; the source only ever replaces. */
class RecordingSink<T extends KubeObject> implements ObjectSink<T> {
  replaced: (readonly T[])[] = [];

  replace(objects: readonly T[]): void {
    this.replaced.push(objects);
  }
  upsert(): void {
    throw new Error('the manifest source only replaces');
  }
  remove(): void {
    throw new Error('the manifest source only replaces');
  }

  /** Keys of the latest set, sorted. */
  keys(): string[] {
    return (this.replaced.at(-1) ?? []).map(objectKey).sort();
  }
}

const waitFor = (check: () => void): Promise<void> => eventually(check, { timeoutMs: 5000, intervalMs: 20 });

const service = (name: string, namespace = 'default'): string =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: ${namespace}}\n`;
const configMap = (name: string, value: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {value: "${value}"}\n`;

let dir: string;
let source: ManifestSource | undefined;
let services: RecordingSink<Service>;
let configMaps: RecordingSink<ConfigMap>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-manifests-'));
  services = new RecordingSink();
  configMaps = new RecordingSink();
});

afterEach(async () => {
  await source?.stop();
  source = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): void {
  writeFileSync(join(dir, name), text);
}

async function start(options: Partial<ManifestSourceOptions> = {}): Promise<ManifestSource> {
  source = new ManifestSource({
    dir,
    sinks: { Service: services, ConfigMap: configMaps },
    logger: silentLogger(),
    debounceMs: 20,
    ...options,
  });
  await source.start();
  return source;
}

test('start() resolves with every file of the folder delivered, subfolders included', async () => {
  write('a.yaml', service('web') + '---\n' + configMap('settings', '1'));
  write('b.yml', service('api', 'shop'));
  mkdirSync(join(dir, 'team'));
  write('team/c.yaml', service('db', 'shop'));
  write('notes.txt', service('ignored'));

  const loaded = await start();
  assert.deepEqual(loaded.errors(), []);
  assert.deepEqual(services.keys(), ['default/web', 'shop/api', 'shop/db']);
  assert.deepEqual(configMaps.keys(), ['default/settings']);
});

test('a mounted ConfigMap is read once through its symlinks, and its atomic update is seen', async () => {
  // The kubelet's layout: key -> ..data/key, ..data -> ..<timestamp>/, swapped by renaming a new ..data link.
  mkdirSync(join(dir, '..2024_01_01'));
  write('..2024_01_01/web.yaml', service('web'));
  symlinkSync('..2024_01_01', join(dir, '..data'));
  symlinkSync('..data/web.yaml', join(dir, 'web.yaml'));
  write('.web.yaml.swp', service('swap'));
  const loaded = await start();
  assert.deepEqual(loaded.errors(), []);
  assert.deepEqual(services.keys(), ['default/web']);

  mkdirSync(join(dir, '..2024_01_02'));
  write('..2024_01_02/web.yaml', service('web', 'shop'));
  symlinkSync('..2024_01_02', join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  await waitFor(() => assert.deepEqual(services.keys(), ['shop/web']));
  assert.deepEqual(loaded.errors(), []);
});

test('an edited file is re-read and the sinks get the new complete set', async () => {
  write('a.yaml', service('web'));
  write('b.yaml', configMap('settings', 'old'));
  await start();

  write('a.yaml', service('web') + '---\n' + service('api'));
  write('b.yaml', configMap('settings', 'new'));
  await waitFor(() => {
    assert.deepEqual(services.keys(), ['default/api', 'default/web']);
    assert.deepEqual(
      configMaps.replaced.at(-1)?.map((object) => object.data),
      [{ value: 'new' }],
    );
  });
});

test('a file changed while the first load parses is loaded after it, never under it', async () => {
  // 2.4 MiB: the first load parses it in slices over several turns of the event loop.
  const filler = 'x'.repeat(8 << 10);
  for (let i = 0; i < 300; i++) write(`filler-${i}.yaml`, configMap(`filler-${i}`, filler));
  write('settings.yaml', configMap('settings', 'old'));
  source = new ManifestSource({ dir, sinks: { Service: services, ConfigMap: configMaps }, logger: silentLogger(), debounceMs: 20 });
  const starting = source.start(); // the folder is scanned before start() returns its promise
  write('settings.yaml', configMap('settings', 'new'));
  await starting;
  const settings = (set: readonly ConfigMap[] | undefined): unknown =>
    set?.find((object) => object.metadata?.name === 'settings')?.data?.['value'];
  assert.equal(settings(configMaps.replaced[0]), 'old', 'the first load delivers what it scanned');
  await waitFor(() => assert.equal(settings(configMaps.replaced.at(-1)), 'new'));
  assert.equal(configMaps.replaced.at(-1)?.length, 301);
});

test('a change reads and parses again only the files that changed; the others keep their objects', async () => {
  const loads: { read?: number; parsed?: number; files?: number }[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        const entry = JSON.parse(line) as { msg: string; read?: number; parsed?: number; files?: number };
        if (entry.msg === 'loaded manifests') loads.push(entry);
      },
    },
  );
  write('a.yaml', service('web'));
  write('b.yaml', configMap('settings', 'old'));
  write('c.yaml', service('api'));
  await start({ logger });
  const [firstWeb] = services.replaced.at(-1)?.filter((object) => object.metadata?.name === 'web') ?? [];
  assert.ok(firstWeb);

  write('b.yaml', configMap('settings', 'new'));
  await waitFor(() =>
    assert.deepEqual(
      configMaps.replaced.at(-1)?.map((object) => object.data),
      [{ value: 'new' }],
    ),
  );
  const [web] = services.replaced.at(-1)?.filter((object) => object.metadata?.name === 'web') ?? [];
  // Not parsed again: the very object of the first read, which the store takes as unchanged without comparing.
  assert.equal(web, firstWeb);
  // Files written just before a read are read again until their stamps are old enough to trust (at most 3 here).
  assert.equal(loads.at(-1)?.files, 3);
  assert.equal(loads.at(-1)?.parsed, 1);
});

test('a second write within one tick of the file clock after the read is still seen', async () => {
  write('a.yaml', configMap('settings', 'one'));
  await start();
  // Same size, at once: the inode, size and (coarse) times may all be those of the first read.
  write('a.yaml', configMap('settings', 'two'));
  await waitFor(() =>
    assert.deepEqual(
      configMaps.replaced.at(-1)?.map((object) => object.data),
      [{ value: 'two' }],
    ),
  );
});

test('a file in a folder created after start() is picked up', async () => {
  await start();
  assert.deepEqual(services.keys(), []);
  mkdirSync(join(dir, 'team'));
  write('team/web.yaml', service('web'));
  await waitFor(() => assert.deepEqual(services.keys(), ['default/web']));
});

test('a deleted file takes its objects with it', async () => {
  write('a.yaml', service('web'));
  write('b.yaml', service('api'));
  await start();
  assert.deepEqual(services.keys(), ['default/api', 'default/web']);

  unlinkSync(join(dir, 'b.yaml'));
  await waitFor(() => assert.deepEqual(services.keys(), ['default/web']));
});

test('a file with broken YAML is an error naming it; the other files stay loaded', async () => {
  const lines: { level: number; file?: string; msg: string }[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  write('good.yaml', service('web'));
  await start({ logger });

  write('broken.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: [oops\n');
  await waitFor(() => assert.equal(source?.errors().length, 1));
  const [error] = source?.errors() ?? [];
  const brokenPath = join(dir, 'broken.yaml');
  assert.equal(error?.file, brokenPath);
  assert.ok(error?.message.startsWith(`${brokenPath}:`), error?.message);
  assert.match(error?.message ?? '', /YAML syntax error/);
  assert.deepEqual(services.keys(), ['default/web']);
  assert.deepEqual(
    lines.map(({ level, file, msg }) => ({ level, file, msg })),
    [{ level: pino.levels.values['error'], file: brokenPath, msg: error?.message }],
    'the error is logged once, with its file',
  );

  write('broken.yaml', service('fixed'));
  await waitFor(() => assert.deepEqual(services.keys(), ['default/fixed', 'default/web']));
  assert.deepEqual(source?.errors(), []);
});

test('an unknown kind is an error; the file’s other documents load', async () => {
  write('app.yaml', 'apiVersion: v1\nkind: Foo\nmetadata: {name: x}\n---\n' + service('web'));
  const loaded = await start();
  assert.deepEqual(services.keys(), ['default/web']);
  assert.equal(loaded.errors().length, 1);
  assert.match(loaded.errors()[0]?.message ?? '', /app\.yaml:1 \(document 1\): unsupported kind "Foo"/);
});

test('of two objects with the same kind, namespace and name, the first file in sorted order wins', async () => {
  write('b.yaml', configMap('settings', 'from-b'));
  write('a.yaml', configMap('settings', 'from-a'));
  const loaded = await start();

  assert.deepEqual(
    configMaps.replaced.at(-1)?.map((object) => object.data),
    [{ value: 'from-a' }],
  );
  assert.equal(loaded.errors().length, 1);
  const message = loaded.errors()[0]?.message ?? '';
  assert.ok(message.startsWith(join(dir, 'b.yaml')), message);
  assert.match(message, /duplicate ConfigMap default\/settings; keeping the one from .*a\.yaml:1 \(document 1\)/);
});

test('a missing folder fails start()', async () => {
  const missing = join(dir, 'nope');
  await assert.rejects(start({ dir: missing }), new RegExp(`manifests folder ${missing}`));
});

test('after stop() changes are no longer delivered', async () => {
  write('a.yaml', service('web'));
  const loaded = await start();
  await loaded.stop();
  const deliveries = services.replaced.length;
  write('b.yaml', service('api'));
  // Nothing is expected, so wait well past the debounce and any event latency.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(services.replaced.length, deliveries);
});
