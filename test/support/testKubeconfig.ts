import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

/** How a kubeconfig's single user authenticates. */
export type KubeconfigCredentials = { readonly clientCertFile: string; readonly clientKeyFile: string } | { readonly token: string };

/**
 * Writes a kubeconfig with one cluster, user and context. Certificates are
 * inlined so the file stays valid wherever it is read from.
 */
export async function writeKubeconfig(
  path: string,
  server: string,
  caCertFile: string,
  userName: string,
  credentials: KubeconfigCredentials,
): Promise<void> {
  const base64Of = async (file: string): Promise<string> => (await readFile(file)).toString('base64');
  const user =
    'token' in credentials
      ? { token: credentials.token }
      : {
          'client-certificate-data': await base64Of(credentials.clientCertFile),
          'client-key-data': await base64Of(credentials.clientKeyFile),
        };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'portico-test', cluster: { server, 'certificate-authority-data': await base64Of(caCertFile) } }],
    users: [{ name: userName, user }],
    contexts: [{ name: userName, context: { cluster: 'portico-test', user: userName } }],
    'current-context': userName,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}
