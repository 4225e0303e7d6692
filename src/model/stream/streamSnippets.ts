// The stream-snippet annotations, as ingress-nginx's getStreamSnippets: every
// served Ingress that sets one (canaries too), oldest first, each written into
// the stream block after Portico's own servers and before the ConfigMap's
// stream-snippet (renderStream.ts). They are admitted only where the ConfigMap
// admits snippet annotations (snippetAnnotations.ts); each keeps its Ingress,
// so a snippet nginx refuses leaves out that Ingress's version alone.
import type { AcceptedIngress } from '../buildConfiguration.js';
import { compareIngressAge } from '../ingressOrder.js';
import { ingressRef } from '../ingressRules.js';
import type { IngressStreamSnippet } from './streamTypes.js';

export function ingressStreamSnippets(ingresses: readonly AcceptedIngress[]): IngressStreamSnippet[] {
  return [...ingresses]
    .sort((a, b) => compareIngressAge(a.ingress, b.ingress))
    .flatMap(({ ingress, annotations: { streamSnippet } }) =>
      streamSnippet === undefined ? [] : [{ ingress: ingressRef(ingress), snippet: streamSnippet }],
    );
}
