// The data plane as the controller sees it: a Configuration goes in; the
// certificates land on disk, the text is rendered, and nginx is reloaded only
// when the text changed. Knows nginx, not Kubernetes.
import { request } from 'undici';
import type { Logger } from '../log/logger.js';
import type { Configuration } from '../model/types.js';
import type { ApplyResult, DataPlane } from './dataPlane.js';
import { NginxProcess } from './nginx/nginxProcess.js';
import { createPrefixDirs } from './nginx/process/prefixLayout.js';
import { certificateFilePath, createRenderContext, STATUS_ADDRESS, type ListenPorts, type RenderContext } from './nginx/render/renderContext.js';
import { renderNginxConf } from './nginx/render/renderNginxConf.js';
import { resolveExternalNames } from './resolveExternalNames.js';
import { removeUnusedCertificateFiles, writeCertificateFiles } from './tls/certificateFiles.js';
import { ensureFakeCertificate } from './tls/fakeCertificate.js';

export interface NginxDataPlaneOptions {
  /** The directory Portico's nginx runs in. */
  prefix: string;
  logger: Logger;
  ports: ListenPorts;
  /** Addresses the public servers bind; empty = all IPv4 addresses. */
  listenAddresses?: readonly string[];
  /** Where access logs go (default: the prefix's logs/access.log). */
  accessLog?: string;
  nginxBinary?: string;
}

export class NginxDataPlane implements DataPlane {
  readonly nginx: NginxProcess;
  private context: RenderContext | undefined;

  constructor(private readonly options: NginxDataPlaneOptions) {
    this.nginx = new NginxProcess({ prefix: options.prefix, logger: options.logger.child({ component: 'nginx' }), binary: options.nginxBinary });
  }

  /** Starts nginx with its first configuration. */
  private async start(configuration: Configuration): Promise<void> {
    const layout = this.nginx.layout;
    await createPrefixDirs(layout);
    const fakeCertificate = await ensureFakeCertificate(layout.certificateDir);
    this.context = createRenderContext(layout.prefix, {
      ports: this.options.ports,
      listenAddresses: this.options.listenAddresses,
      paths: {
        errorLog: layout.errorLog,
        accessLog: this.options.accessLog ?? layout.accessLog,
        temp: layout.temp,
        certificateDir: layout.certificateDir,
        fakeCertificate,
      },
    });
    try {
      await this.nginx.start(await this.prepare(configuration));
    } catch (error) {
      this.context = undefined; // the next apply tries a start again
      throw error;
    }
    await this.removeUnusedCertificates(configuration);
  }

  /** The first configuration starts nginx; later ones reload it when the text changed. */
  async apply(configuration: Configuration): Promise<ApplyResult> {
    if (!this.context) {
      await this.start(configuration);
      return { outcome: 'reloaded' };
    }
    const result = await this.nginx.apply(await this.prepare(configuration));
    // Files of replaced certificates go once nginx runs a configuration without them.
    if (result.outcome !== 'rejected') await this.removeUnusedCertificates(configuration);
    return result;
  }

  async stop(): Promise<void> {
    await this.nginx.stop();
  }

  /** nginx answers on its status port (ingress-nginx's health check of the data plane). */
  async healthy(timeoutMs: number): Promise<boolean> {
    if (!this.nginx.running || !this.context) return false;
    try {
      const response = await request(`http://${STATUS_ADDRESS}:${this.context.ports.status}/healthz`, {
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await response.body.dump();
      return response.statusCode === 200;
    } catch {
      return false;
    }
  }

  /** Renders the text nginx will load, after writing the certificate files it names. */
  private async prepare(configuration: Configuration): Promise<string> {
    const context = this.requireContext();
    const resolved = await resolveExternalNames(configuration);
    await writeCertificateFiles(resolved.certificates, (id) => certificateFilePath(context, id));
    return renderNginxConf(resolved, context);
  }

  private async removeUnusedCertificates(configuration: Configuration): Promise<void> {
    const context = this.requireContext();
    const inUse = [context.paths.fakeCertificate, ...configuration.certificates.map((c) => certificateFilePath(context, c.id))];
    await removeUnusedCertificateFiles(context.paths.certificateDir, inUse);
  }

  private requireContext(): RenderContext {
    if (!this.context) throw new Error('the data plane is not started');
    return this.context;
  }
}
