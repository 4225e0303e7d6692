// An nginx run by Portico's own process manager in a throw-away prefix: the
// hand-written baselines the benchmarks compare Portico with.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NginxProcess } from '../../src/dataplane/nginx/nginxProcess.js';
import type { PrefixLayout } from '../../src/dataplane/nginx/process/prefixLayout.js';
import { silentLogger } from '../../src/log/logger.js';

export async function startThrowAwayNginx(
  conf: (layout: PrefixLayout) => string,
): Promise<{ nginx: NginxProcess; stop: () => Promise<void> }> {
  const prefix = await mkdtemp(join(tmpdir(), 'portico-bench-nginx-'));
  const nginx = new NginxProcess({ prefix, logger: silentLogger() });
  const stop = async (): Promise<void> => {
    await nginx.stop();
    await rm(prefix, { recursive: true, force: true });
  };
  try {
    await nginx.start(conf(nginx.layout));
  } catch (error) {
    await stop();
    throw error;
  }
  return { nginx, stop };
}

/** The http block's temp paths in the prefix (nginx's compiled-in ones are Debian's, not writable there), at `indent`. */
export function tempPathDirectives(layout: PrefixLayout, indent = '    '): string {
  const { clientBody, proxy, fastcgi, uwsgi, scgi } = layout.temp;
  return [
    `client_body_temp_path ${clientBody};`,
    `proxy_temp_path ${proxy};`,
    `fastcgi_temp_path ${fastcgi};`,
    `uwsgi_temp_path ${uwsgi};`,
    `scgi_temp_path ${scgi};`,
  ]
    .map((line) => indent + line)
    .join('\n');
}
