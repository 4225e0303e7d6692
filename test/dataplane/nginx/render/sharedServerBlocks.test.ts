// Which hosts share one server block (sharedServerBlocks.ts): those written
// alike but for their exact names, unless something may read $server_name;
// and nginx serves each name of a shared block as its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { sharedServerBlocks } from '../../../../src/dataplane/nginx/render/sharedServerBlocks.js';
import type { Configuration, Location, Server } from '../../../../src/model/types.js';
import { backend, configuration, location, server, testContext } from './fixtures.js';
import { missingNginx, nginxSyntaxCheck } from './nginxPrefix.js';

const web = backend('default-web-80', []);
const routes = (): Location[] => [location('/', 'prefix', web.name), location('/api', 'prefix', web.name)];

function blocks(servers: Server[], parts: Partial<Configuration> = {}): string[][] {
  const config = configuration({ servers: [server('_', []), ...servers], backends: [web], ...parts });
  return sharedServerBlocks(config, config.servers[0]).map((block) => [block.hostname, ...(block.aliases ?? []).map((a) => a.hostname)]);
}

describe('hosts that share a server block', () => {
  test("hosts written alike share the first one's block, in the model's order; others keep theirs", () => {
    const other = server('c.example.com', [location('/', 'prefix', web.name, { annotations: { proxy: { readTimeout: 5 } } })]);
    assert.deepEqual(
      blocks([server('a.example.com', routes()), other, server('b.example.com', routes()), server('d.example.com', routes())]),
      [['_'], ['a.example.com', 'b.example.com', 'd.example.com'], ['c.example.com']],
    );
    // TLS or not, certificates and paths are part of what is written.
    assert.deepEqual(blocks([server('a.example.com', routes(), { tls: true }), server('b.example.com', routes())]), [
      ['_'],
      ['a.example.com'],
      ['b.example.com'],
    ]);
  });

  test('names nginx does not match by hash keep their block (regex names are tried in order)', () => {
    assert.deepEqual(
      blocks([server('*.a.example.com', routes()), server('*.b.example.com', routes()), server('x_y.example.com', routes())]),
      [['_'], ['*.a.example.com'], ['*.b.example.com'], ['x_y.example.com']],
    );
  });

  test('nothing shares where $server_name may be read or the host has its own extras', () => {
    const twin = (locations: Location[]): Server[] => [server('a.example.com', locations), server('b.example.com', locations)];
    const alone = [['_'], ['a.example.com'], ['b.example.com']];
    const annotated = (overrides: Parameters<typeof location>[3]): Location[] => [location('/', 'prefix', web.name, overrides)];
    assert.deepEqual(blocks(twin(annotated({ annotations: { backendProtocol: 'FCGI' } }))), alone, 'FastCGI: SERVER_NAME');
    const snippet = annotated({});
    snippet[0] = { ...snippet[0]!, annotations: { ...snippet[0]!.annotations, configurationSnippet: 'add_header X-A 1;' } };
    assert.deepEqual(blocks(twin(snippet)), alone, 'a configuration snippet');
    const logged = { settings: { ...configuration({}).settings, logFormatUpstream: '$remote_addr $server_name' } };
    assert.deepEqual(blocks(twin(routes()), logged), alone, 'a log format with $server_name');
    const hashed = { ...web, balancing: { ...web.balancing, hashBy: { key: '${server_name}$uri', subset: false, subsetSize: 3 } } };
    assert.deepEqual(blocks(twin(routes()), { backends: [hashed] }), alone, 'upstream-hash-by');
    const aliased = twin(routes()).map((host) => ({ ...host, aliases: [{ hostname: `www.${host.hostname}`, certificate: undefined }] }));
    assert.deepEqual(blocks(aliased), [['_'], ['a.example.com', 'www.a.example.com'], ['b.example.com', 'www.b.example.com']]);
  });

  test('one block answers for both names (nginx -t)', { skip: missingNginx }, async () => {
    const context = testContext();
    const conf = renderNginxConf(
      configuration({ servers: [server('_', []), server('a.example.com', routes()), server('b.example.com', routes())], backends: [web] }),
      context,
    );
    assert.equal(conf.match(/^ *server_name "a\.example\.com" "b\.example\.com";$/gm)?.length, 1);
    assert.equal(conf.match(/"b\.example\.com"/g)?.length, 1);
    await nginxSyntaxCheck(conf, context);
  });
});
