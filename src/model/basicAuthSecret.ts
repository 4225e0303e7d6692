// The users of a basic or digest authentication (auth-secret), read from
// the Secret on every model run: an edited Secret (a password changed, a user
// added) reaches nginx as live state, without an Ingress edit or a reload.
// A Secret that cannot be used leaves the location refusing requests (503)
// with a Warning on the Ingress, as ingress-nginx's denied locations.
import { createHash } from 'node:crypto';
import type { Secret } from '../kube/objects.js';
import { resolveObjectReference } from './objectReference.js';
import type { ReferenceContext, ReferenceResolver } from './referencedObjects.js';
import type { BasicAuth, LocationAnnotations, PasswordTable } from './types.js';

/** The reason of the Warning Event when a location is refused for its auth-secret. */
export const AUTH_SECRET_UNUSABLE = 'AuthSecretUnusable';

export const resolveBasicAuthSecret: ReferenceResolver = (annotations, context) => {
  const { basicAuth } = annotations;
  if (basicAuth === undefined) return annotations;
  const users = passwordTable(basicAuth, context);
  if (typeof users === 'string') {
    context.problems.push({
      ingress: context.ingress,
      severity: 'warning',
      reason: AUTH_SECRET_UNUSABLE,
      message: `auth-type ${basicAuth.type}: ${users}; its locations answer 503`,
    });
    return annotations;
  }
  return { ...annotations, basicAuth: { ...basicAuth, users } } satisfies LocationAnnotations;
};

/** The table, or why the Secret cannot be used. */
function passwordTable(basicAuth: BasicAuth, context: ReferenceContext): PasswordTable | string {
  if (basicAuth.secret === undefined) return 'auth-secret is not set';
  const resolved = resolveObjectReference(basicAuth.secret, context.ingress.namespace, context.settings);
  if (!resolved.ok) return `auth-secret ${resolved.reason}`;
  const secret = context.lookup.secret(resolved.key);
  if (secret === undefined) return `auth-secret ${resolved.key} not found`;
  const text = userFile(secret, basicAuth.secretType);
  if (text === undefined) return `auth-secret ${resolved.key} has no key "auth" (auth-secret-type auth-file)`;
  const entries = basicAuth.type === 'basic' ? htpasswdEntries(text) : htdigestEntries(text);
  const digest = createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
  return { secret: resolved.key, id: `${resolved.key}@${digest}`, entries: Object.fromEntries(entries) };
}

/** The file ingress-nginx writes: key `auth` as it is, or a `key:value` line per key of the map (sorted here). */
function userFile(secret: Secret, secretType: BasicAuth['secretType']): string | undefined {
  const data = secret.data ?? {};
  const decode = (value: string) => Buffer.from(value, 'base64').toString('utf8');
  if (secretType === 'auth-file') return data.auth === undefined ? undefined : decode(data.auth);
  return Object.keys(data)
    .sort()
    .map((user) => `${user}:${decode(data[user] ?? '')}\n`)
    .join('');
}

/** Lines without their end (nginx ends them at CR or LF), without blank and `#` comment lines. */
function entryLines(text: string): string[] {
  return text.split(/[\r\n]/).filter((line) => line !== '' && !line.startsWith('#'));
}

/** The first entry of a user wins, as nginx reads the file top down. */
function firstOfEach(entries: ReadonlyArray<[string, string]>): Array<[string, string]> {
  const kept = new Map<string, string>();
  for (const [user, hash] of entries) if (!kept.has(user)) kept.set(user, hash);
  return [...kept];
}

/**
 * htpasswd, as nginx's auth_basic_user_file: `user:hash`, the hash ending at
 * the next `:` (a comment field may follow); a line without `:` is skipped.
 * `user:` stays, with an empty hash no password matches (ingress-nginx: 401).
 */
export function htpasswdEntries(text: string): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const line of entryLines(text)) {
    const [user = '', hash] = line.split(':');
    if (hash !== undefined) entries.push([user, hash]);
  }
  return firstOfEach(entries);
}

/** htdigest: `user:realm:HA1`, keyed `user:realm` (the realm of the request must match). */
export function htdigestEntries(text: string): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const line of entryLines(text)) {
    const fields = line.split(':');
    const [user, realm, ha1] = fields;
    if (fields.length === 3 && user !== undefined && realm !== undefined && ha1 !== undefined) entries.push([`${user}:${realm}`, ha1]);
  }
  return firstOfEach(entries);
}
