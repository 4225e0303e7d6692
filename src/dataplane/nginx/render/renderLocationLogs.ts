// enable-access-log and enable-rewrite-log in a location, as ingress-nginx's
// template writes them. `access_log off` stops only nginx's log line: the
// request metrics are counted by the log phase's Lua (renderMonitor.ts), which
// still runs. Locations with the defaults get nothing from here.
import type { LocationAnnotations } from '../../../model/types.js';
import { raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';

export function renderLocationLogs(location: ConfigBuilder, logs: LocationAnnotations['logs']): void {
  if (logs === undefined) return;
  if (!logs.accessLog) location.directive('access_log', raw.keyword('off'));
  // At notice level, in the error log.
  if (logs.rewriteLog) location.directive('rewrite_log', raw.keyword('on'));
}
