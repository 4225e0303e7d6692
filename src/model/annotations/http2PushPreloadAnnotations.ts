// http2-push-preload: nginx turns the preload links of an answer's Link
// headers into HTTP/2 server pushes (http2_push_preload). Debian 12's nginx
// 1.22 has it (nginx removed server push in 1.25.1); ingress-nginx v1.15.1
// still reads the annotation. Rendered only when "true", as ingress-nginx does.
import { parseBoolean } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

const http2PushPreload: AnnotationDefinition<boolean> = { name: 'http2-push-preload', risk: 'Low', parse: parseBoolean };

export const http2PushPreloadAnnotations: AnnotationGroup<LocationAnnotations['http2PushPreload']> = {
  annotations: [http2PushPreload],
  // false is nginx's default: a location without the annotation compares equal to one with "false".
  resolve: (values) => (values.get(http2PushPreload) === true ? true : undefined),
};
