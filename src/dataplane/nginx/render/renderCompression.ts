// use-gzip: ingress-nginx's gzip directives in the http block, so every
// server and location compresses alike; nothing at all when it is off.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { literal, raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { onOff } from './renderHttp.js';

export function renderCompression(http: ConfigBuilder, settings: GlobalSettings): void {
  if (!settings.useGzip) return;
  http.directive('gzip', onOff(true));
  http.directive('gzip_comp_level', raw.integer(settings.gzipLevel));
  if (settings.gzipDisable !== undefined) http.directive('gzip_disable', literal(settings.gzipDisable));
  http.directive('gzip_http_version', raw.keyword('1.1'));
  http.directive('gzip_min_length', raw.integer(settings.gzipMinLength));
  http.directive('gzip_types', ...settings.gzipTypes.map((type) => literal(type)));
  // Responses to proxied requests (a CDN in front) too, and a Vary: Accept-Encoding so caches keep both.
  http.directive('gzip_proxied', raw.keyword('any'));
  http.directive('gzip_vary', onOff(true));
}
