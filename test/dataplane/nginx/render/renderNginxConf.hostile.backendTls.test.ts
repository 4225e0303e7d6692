// Hostile values in the fields of backend TLS (proxy-ssl-*): see renderNginxConf.hostile.test.ts.
import assert from 'node:assert/strict';
import type { Configuration, LocationAnnotations } from '../../../../src/model/types.js';
import { describe, test } from 'node:test';
import { renderNginxConf } from '../../../../src/dataplane/nginx/render/renderNginxConf.js';
import { configuration, location, server } from './fixtures.js';
import { parseNginxConf } from './nginxConfTokenizer.js';
import { allDirectives, argsOf, locationOf } from './parsedTree.js';
import { HOSTILE_STRINGS, LONG, web, context, serverMatching } from './hostileValues.js';

describe('hostile backend TLS values (proxy-ssl-*)', () => {
  const withBackendTls = (tls: Partial<NonNullable<LocationAnnotations['backendTls']>>): Configuration =>
    configuration({
      servers: [
        server('a.example.com', [
          location('/', 'prefix', web.name, {
            annotations: {
              backendProtocol: 'HTTPS',
              backendTls: {
                secret: { namespace: undefined, name: 'tls' },
                files: { trustedCertificate: 'app-tls-ca-0.pem', clientCertificate: 'app-tls-client-0.pem' },
                verify: true,
                verifyDepth: 1,
                ciphers: 'HIGH',
                protocols: ['TLSv1.2'],
                name: undefined,
                serverName: false,
                ...tls,
              },
            },
          }),
        ]),
      ],
      backends: [web],
    });
  const directive = (config: Configuration, name: string): string[][] => {
    const tree = parseNginxConf(renderNginxConf(config, context));
    assert.ok(!allDirectives(tree).some((found) => found.name === 'ssl_engine'));
    return argsOf(locationOf(serverMatching(tree, 'a.example.com'), '/'), name);
  };

  test('a hostile cipher list is one argument of proxy_ssl_ciphers', () => {
    for (const value of HOSTILE_STRINGS) assert.deepEqual(directive(withBackendTls({ ciphers: value }), 'proxy_ssl_ciphers'), [[value]]);
  });

  test('a hostile proxy-ssl-name is one argument of proxy_ssl_name, or refused for a malformed variable reference', () => {
    for (const value of HOSTILE_STRINGS) {
      const config = withBackendTls({ name: value });
      if (value.includes('$')) assert.throws(() => renderNginxConf(config, context), /malformed nginx variable reference/);
      else assert.deepEqual(directive(config, 'proxy_ssl_name'), [[value]]);
    }
  });

  test('protocols, file ids and depths outside their closed sets are refused', () => {
    for (const value of [...HOSTILE_STRINGS, LONG, '', '../../etc/passwd']) {
      assert.throws(() => renderNginxConf(withBackendTls({ protocols: [value] }), context), /unknown ssl-protocols entry/);
      for (const files of [
        { trustedCertificate: value, clientCertificate: undefined },
        { trustedCertificate: undefined, clientCertificate: value },
      ]) {
        assert.throws(() => renderNginxConf(withBackendTls({ files }), context), /not a secret file id|too long/);
      }
    }
    for (const depth of [Number.NaN, -1, 1.5]) {
      assert.throws(() => renderNginxConf(withBackendTls({ verifyDepth: depth }), context), /invalid integer/);
    }
  });
});
