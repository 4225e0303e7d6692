// The SecretFiles one configuration needs, collected while the model builds
// it: the same content named twice is one file.
import { createHash } from 'node:crypto';
import type { SecretFile } from './types.js';

/** Characters of a Secret's namespace and name that may appear in a file name (DNS names: all of theirs). */
const NAME_PART = /^[a-z0-9][a-z0-9.-]*$/;

export class SecretFileSet {
  private readonly files = new Map<string, SecretFile>();

  /**
   * Registers `contents` from Secret `secret` (`namespace/name`) in `role`
   * (e.g. `ca`, `crl`, `client`); returns the id the renderer names it by.
   */
  add(secret: string, role: string, contents: string): string {
    const [namespace = '', name = ''] = secret.split('/');
    if (!NAME_PART.test(namespace) || !NAME_PART.test(name) || !/^[a-z]+$/.test(role)) {
      throw new Error(`not a Secret key and role for a file name: ${JSON.stringify(secret)} ${JSON.stringify(role)}`);
    }
    const digest = createHash('sha256').update(contents).digest('hex').slice(0, 16);
    const id = `${namespace}-${name}-${role}-${digest}.pem`;
    this.files.set(id, { id, secret, contents });
    return id;
  }

  /**
   * Registers binary `contents` taken from the ConfigMap key `key` (ssl-session-ticket-key);
   * returns its id. Kept as base64, so the configuration stays plain, comparable data.
   */
  addBinary(key: string, contents: Buffer): string {
    if (!/^[a-z]+(?:-[a-z]+)*$/.test(key)) throw new Error(`not a ConfigMap key for a file name: ${JSON.stringify(key)}`);
    const digest = createHash('sha256').update(contents).digest('hex').slice(0, 16);
    const id = `configmap-${key}-${digest}.key`;
    this.files.set(id, { id, secret: `ConfigMap key ${key}`, contents: contents.toString('base64'), encoding: 'base64' });
    return id;
  }

  /** Sorted by id, as Configuration.secretFiles. */
  list(): SecretFile[] {
    return [...this.files.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  }
}
