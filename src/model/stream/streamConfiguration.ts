// Configuration.stream from its parts: undefined while none of them asks for
// a stream block, so a configuration without TCP/UDP services, SSL passthrough
// or stream snippets is exactly what it was before the stream block existed.
import type { Configuration } from '../types.js';
import { NO_STREAM, type StreamConfiguration } from './streamTypes.js';

export function streamConfiguration(parts: Partial<StreamConfiguration>): Pick<Configuration, 'stream'> {
  const stream: StreamConfiguration = { ...NO_STREAM, ...parts };
  const used = stream.services.length > 0 || stream.sslPassthrough || stream.passthroughHosts.length > 0 || stream.snippets.length > 0;
  return used ? { stream } : {};
}
