// `kubectl apply --server-side --dry-run=server --validate=strict` for one
// YAML document: the API server decodes the YAML itself (so `0400` means what
// it means to kubectl), defaults, validates and admits the object as for a real
// apply, and stores nothing. client-node is not used here because its typed
// serializer silently drops fields it does not know, which would hide a
// misspelt field from the strict validation this is for.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { Agent, request } from 'undici';

export interface DryRunResult {
  readonly statusCode: number;
  readonly body: string;
}

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export class ServerSideDryRun {
  private readonly resources = new Map<string, Promise<ApiResource[]>>();

  private constructor(
    private readonly server: string,
    private readonly agent: Agent,
  ) {}

  static async connect(kubeconfigPath: string): Promise<ServerSideDryRun> {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error(`${kubeconfigPath} has no current cluster`);
    const tls: { ca?: unknown; cert?: unknown; key?: unknown } = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const agent = new Agent({ connect: { ca: tls.ca as string, cert: tls.cert as string, key: tls.key as string } });
    return new ServerSideDryRun(cluster.server.replace(/\/+$/, ''), agent);
  }

  /** Applies `yaml` (one document describing `object`) with dryRun=All. */
  async apply(object: KubernetesObject, yaml: string): Promise<DryRunResult> {
    const url = new URL(this.server + (await this.objectPath(object)));
    for (const [name, value] of Object.entries({
      dryRun: 'All',
      fieldManager: 'portico-deploy-test',
      force: 'true',
      fieldValidation: 'Strict',
    })) {
      url.searchParams.set(name, value);
    }
    const response = await request(url, {
      method: 'PATCH',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/apply-patch+yaml', accept: 'application/json' },
      body: yaml,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    return { statusCode: response.statusCode, body: await response.body.text() };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async objectPath(object: KubernetesObject): Promise<string> {
    const apiVersion = object.apiVersion ?? '';
    const groupPath = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const resource = (await this.discover(groupPath)).find((r) => r.kind === object.kind && !r.name.includes('/'));
    if (!resource) throw new Error(`the API server serves no ${object.kind} in ${apiVersion}`);
    const name = encodeURIComponent(object.metadata?.name ?? '');
    if (!resource.namespaced) return `${groupPath}/${resource.name}/${name}`;
    return `${groupPath}/namespaces/${encodeURIComponent(object.metadata?.namespace ?? 'default')}/${resource.name}/${name}`;
  }

  private discover(groupPath: string): Promise<ApiResource[]> {
    let resources = this.resources.get(groupPath);
    if (!resources) {
      resources = (async () => {
        const response = await request(this.server + groupPath, { dispatcher: this.agent, headers: { accept: 'application/json' } });
        const text = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`GET ${groupPath}: HTTP ${response.statusCode}: ${text}`);
        return (JSON.parse(text) as { resources: ApiResource[] }).resources;
      })();
      this.resources.set(groupPath, resources);
    }
    return resources;
  }
}
