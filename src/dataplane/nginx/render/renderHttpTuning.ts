// The http block's file I/O, hash sizes and gRPC buffer as ingress-nginx's
// template sets them (httpTuningSettings.ts); server_names_hash_* stay with
// the server names they must fit (renderHttp.ts, serverNames.ts).
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import { raw } from './arguments.js';
import type { ConfigBuilder } from './configBuilder.js';
import { onOff } from './renderHttp.js';

export function renderHttpTuning(http: ConfigBuilder, settings: GlobalSettings): void {
  // Files (static files, buffered bodies) are read by a thread pool, so a slow disk never blocks a worker's event loop.
  http.directive('aio', raw.keyword('threads'));
  if (settings.enableAioWrite) http.directive('aio_write', onOff(true));
  http.directive('map_hash_bucket_size', raw.integer(settings.mapHashBucketSize));
  http.directive('variables_hash_bucket_size', raw.integer(settings.variablesHashBucketSize));
  http.directive('variables_hash_max_size', raw.integer(settings.variablesHashMaxSize));
  if (settings.grpcBufferSizeKb > 0) http.directive('grpc_buffer_size', raw.size(`${settings.grpcBufferSizeKb}k`));
}
