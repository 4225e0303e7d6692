// enable-access-log and enable-rewrite-log: per location, as ingress-nginx's
// "log" group. The access log is only nginx's log file: Portico's request
// metrics come from the log phase's Lua (monitor.lua), which runs whether a
// location writes an access log line or not.
import { parseBoolean } from '../settings/valueSyntax.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** Set only when a location logs otherwise than nginx's defaults (access log on, rewrite log off). */
export interface LogAnnotations {
  /** `enable-access-log`: false writes no access log line for the location's requests. */
  accessLog: boolean;
  /** `enable-rewrite-log`: the rewrite module's steps in the error log, at notice level (the ConfigMap's error-log-level must let them through). */
  rewriteLog: boolean;
}

// The risk levels are ingress-nginx's.
const enableAccessLog: AnnotationDefinition<boolean> = { name: 'enable-access-log', risk: 'Low', parse: parseBoolean };
const enableRewriteLog: AnnotationDefinition<boolean> = { name: 'enable-rewrite-log', risk: 'Low', parse: parseBoolean };

export const logAnnotations: AnnotationGroup<LogAnnotations | undefined> = {
  annotations: [enableAccessLog, enableRewriteLog],
  resolve: (values) => {
    const logs = { accessLog: values.get(enableAccessLog) ?? true, rewriteLog: values.get(enableRewriteLog) ?? false };
    // The defaults are no setting at all, so such locations compare equal to those without the annotations.
    return logs.accessLog && !logs.rewriteLog ? undefined : logs;
  },
};
