// A small HTTP client for the API server on undici 7. client-node 1.4.0 loads
// the kubeconfig and its credentials; Portico's own reflector needs streaming
// reads with an inactivity timeout, which client-node's fetch stack lacks.
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, request, type Dispatcher } from 'undici';

export type QueryValue = string | number | boolean | undefined;

export interface RequestOptions {
  signal?: AbortSignal;
  /** Abort when no response bytes arrive for this long (half-open connections). */
  inactivityTimeoutMs?: number;
}

export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly path: string,
    readonly body: string,
  ) {
    super(`${path}: HTTP ${statusCode}: ${body.slice(0, 300)}`);
    this.name = 'KubeApiError';
  }
}

export class KubeHttpClient {
  private constructor(
    readonly server: string,
    private readonly kubeConfig: KubeConfig,
    private readonly agent: Agent,
  ) {}

  static async fromKubeConfig(kubeConfig: KubeConfig): Promise<KubeHttpClient> {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const tls: { ca?: unknown; cert?: unknown; key?: unknown; rejectUnauthorized?: boolean } = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const agent = new Agent({
      connect: {
        ca: tls.ca as string | undefined,
        cert: tls.cert as string | undefined,
        key: tls.key as string | undefined,
        rejectUnauthorized: tls.rejectUnauthorized ?? true,
        keepAlive: true,
        keepAliveInitialDelay: 30_000,
      },
    });
    return new KubeHttpClient(cluster.server.replace(/\/+$/, ''), kubeConfig, agent);
  }

  /** GET a path; the caller owns the body. Non-2xx responses become KubeApiError. */
  async get(path: string, query: Record<string, QueryValue>, options: RequestOptions = {}): Promise<Dispatcher.ResponseData> {
    const url = new URL(this.server + path);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    const response = await request(url, {
      method: 'GET',
      dispatcher: this.agent,
      headers: { accept: 'application/json', ...(await this.authHeaders()) },
      signal: options.signal,
      headersTimeout: options.inactivityTimeoutMs ?? 60_000,
      bodyTimeout: options.inactivityTimeoutMs ?? 60_000,
    });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const body = await response.body.text().catch(() => '');
      throw new KubeApiError(response.statusCode, path, body);
    }
    return response;
  }

  /**
   * One JSON request (create, update, patch, read) with a deadline; non-2xx
   * responses become KubeApiError. `contentType` selects the patch strategy.
   */
  async send<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    { body, contentType = 'application/json', timeoutMs = 10_000 }: { body?: unknown; contentType?: string; timeoutMs?: number } = {},
  ): Promise<T> {
    const response = await request(this.server + path, {
      method,
      dispatcher: this.agent,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': contentType }),
        ...(await this.authHeaders()),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode >= 300) throw new KubeApiError(response.statusCode, path, text);
    return JSON.parse(text) as T;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Re-read per request so rotated tokens (projected service-account tokens, exec plugins) are used. */
  private async authHeaders(): Promise<Record<string, string>> {
    const options: { headers?: Record<string, string> } = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = {};
    const authorization = options.headers?.['Authorization'] ?? options.headers?.['authorization'];
    if (authorization) headers['authorization'] = authorization;
    return headers;
  }
}
