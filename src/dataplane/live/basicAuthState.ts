// The authentication document of the live state (lua/portico/authentication.lua):
// for every location key, its type, realm and password table, and the tables
// by id. nginx.conf names only the key, which stays the same when the Secret's
// content changes, so a password edit is a push, not a reload; the hashes
// live in nginx's shared memory only.
import { createHash } from 'node:crypto';
import type { BasicAuth, Configuration, PasswordTable } from '../../model/types.js';

export interface AuthenticationDocument {
  /** By location key (decimal). */
  locations: Record<string, { type: BasicAuth['type']; realm: string; users: string }>;
  /** By PasswordTable id. */
  users: Record<string, Record<string, string>>;
}

/**
 * The integer a location hands to Lua: the same for the same type, realm and
 * Secret (48 bits of a digest: exact in a Lua number, and never a collision
 * at any real number of locations).
 */
export function basicAuthKey(basicAuth: BasicAuth, users: PasswordTable): number {
  const identity = JSON.stringify([basicAuth.type, basicAuth.realm, users.secret, basicAuth.secretType]);
  return Number.parseInt(createHash('sha256').update(identity).digest('hex').slice(0, 12), 16);
}

export function authenticationDocument(configuration: Configuration): AuthenticationDocument {
  const document: AuthenticationDocument = { locations: {}, users: {} };
  for (const server of configuration.servers) {
    for (const { annotations } of server.locations) {
      const { basicAuth } = annotations;
      if (basicAuth?.users === undefined) continue;
      const { type, realm, users } = basicAuth;
      document.locations[String(basicAuthKey(basicAuth, users))] = { type, realm, users: users.id };
      document.users[users.id] = users.entries;
    }
  }
  return document;
}
