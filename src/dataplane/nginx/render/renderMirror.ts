// mirror-target: the location copies each request (`mirror`) to an internal
// location of its server that proxies the copy to the target; nginx throws
// the copy's answer away. One internal location per distinct mirror of the
// server, named by a digest of what it does, so two Ingresses of a host with
// the same mirror share it and a location without a mirror gets nothing.
import { createHash } from 'node:crypto';
import { formatMirrorTarget, type Mirror } from '../../../model/annotations/mirrorAnnotations.js';
import type { Location, Server } from '../../../model/types.js';
import { describeValue, literal, raw, template, text } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { renderNginxProxyDefaults } from './renderProxyInheritance.js';
import type { RenderScope } from './renderScope.js';

/** The internal location's path: `/_mirror-` and a digest of the mirror (ingress-nginx names it by the Ingress UID). */
export function mirrorLocationPath(mirror: Mirror): string {
  const digest = createHash('sha256').update(JSON.stringify([formatMirrorTarget(mirror.target), mirror.host, mirror.requestBody]));
  return `/_mirror-${digest.digest('hex').slice(0, 16)}`;
}

/** In the server block: one internal location per distinct mirror of its locations. */
export function renderMirrorLocations(server: ConfigBuilder, model: Server, scope: RenderScope): void {
  const rendered = new Set<string>();
  for (const location of model.locations) {
    const { mirror } = location.annotations;
    if (mirror === undefined) continue;
    const path = mirrorLocationPath(mirror);
    if (rendered.has(path)) continue;
    rendered.add(path);
    server.from(scope.origins.ingress(location.ingress), () => {
      server.block('location', [raw.keyword('='), literal(path)], (body) => {
        body.directive('internal');
        body.directive('proxy_set_header', raw.headerName('Host'), text(mirror.host));
        if (!mirror.requestBody) {
          // The copy has no body, so it must not announce one (nginx's own example for mirror_request_body off).
          body.directive('proxy_pass_request_body', raw.keyword('off'));
          body.directive('proxy_set_header', raw.headerName('Content-Length'), literal(''));
        }
        renderNginxProxyDefaults(body, scope.configuration);
        body.directive('proxy_pass', template(mirrorUrl(mirror)));
      });
    });
  }
}

/** The target's URL; the model admits `$request_uri` as its only variable (mirrorAnnotations.ts), checked again here. */
function mirrorUrl(mirror: Mirror): string {
  const url = formatMirrorTarget(mirror.target);
  if (/\$(?!request_uri(?![A-Za-z0-9_]))/.test(url))
    throw new Error(`mirror target with a variable other than $request_uri: ${describeValue(url)}`);
  return url;
}

/** In a location that proxies: copy each request to its mirror, with or without the request body. */
export function renderMirror(body: ConfigBuilder, location: Location): void {
  const { mirror } = location.annotations;
  if (mirror === undefined) return;
  body.directive('mirror', literal(mirrorLocationPath(mirror)));
  body.directive('mirror_request_body', raw.keyword(mirror.requestBody ? 'on' : 'off'));
}
