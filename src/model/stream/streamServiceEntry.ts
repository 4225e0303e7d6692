// One entry of a --tcp-services-configmap / --udp-services-configmap
// ConfigMap, read as ingress-nginx v1.15.1's getStreamServices reads it: the
// key is the external port, the value `namespace/service:port` with, for TCP
// only, a third field `PROXY` (decode: the listener expects a PROXY header)
// and a fourth `PROXY` (encode: nginx sends one to the backend), both matched
// ignoring case, `::PROXY` being encode alone. Stricter than ingress-nginx
// where it would render what nginx refuses or silently serve something else:
// a port outside 1-65535, a name that is no Kubernetes name, a third or fourth
// field that is neither empty nor PROXY, more than four fields.
import { quoteValue } from '../settings/valueSyntax.js';
import type { StreamProtocol } from './streamTypes.js';

export interface StreamServiceEntry {
  port: number;
  protocol: StreamProtocol;
  namespace: string;
  name: string;
  /** The Service port: its number (as written) or its name. */
  servicePort: string;
  proxyProtocol: { decode: boolean; encode: boolean };
  /** A UDP entry named PROXY fields, which only TCP has: ignored (as ingress-nginx), and said. */
  ignoredProxyFields: boolean;
}

export type ParsedStreamEntry = { ok: true; entry: StreamServiceEntry } | { ok: false; message: string };

/** A namespace: a DNS-1123 label. */
const NAMESPACE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A Service name: a DNS-1035 label. */
const SERVICE_NAME = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A Service port's name: an IANA service name (at most 15 characters, a letter among them, no double or edge hyphen). */
const PORT_NAME = /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9](?:[a-z0-9]|-(?!-))*(?<!-)$/;
const PORT_NUMBER = /^[0-9]{1,5}$/;

function portNumber(text: string): number | undefined {
  if (!PORT_NUMBER.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** The ConfigMap entry `key: value` of the `protocol` ConfigMap, or why it is refused. */
export function parseStreamEntry(key: string, value: string, protocol: StreamProtocol): ParsedStreamEntry {
  const refuse = (why: string): ParsedStreamEntry => ({ ok: false, message: `${protocol} port ${quoteValue(key)}: ${why}` });
  const port = portNumber(key);
  if (port === undefined) return refuse('the key must be a port number from 1 to 65535');
  const fields = value.trim().split(':');
  const expected = `value ${quoteValue(value)} is not namespace/service:port[:PROXY[:PROXY]]`;
  if (fields.length < 2 || fields.length > 4) return refuse(expected);
  const [reference = '', servicePort = '', decode = '', encode = ''] = fields;
  const parts = reference.split('/');
  const [namespace = '', name = ''] = parts;
  if (parts.length !== 2 || !NAMESPACE.test(namespace) || !SERVICE_NAME.test(name)) {
    return refuse(`${expected}: ${quoteValue(reference)} is not namespace/service`);
  }
  if (portNumber(servicePort) === undefined && !PORT_NAME.test(servicePort)) {
    return refuse(`${expected}: ${quoteValue(servicePort)} is neither a port number from 1 to 65535 nor a port name`);
  }
  const isProxy = (field: string): boolean | undefined => (field === '' ? false : field.toUpperCase() === 'PROXY' ? true : undefined);
  const proxy = { decode: isProxy(decode), encode: isProxy(encode) };
  if (proxy.decode === undefined || proxy.encode === undefined) {
    return refuse(`${expected}: the third and fourth fields may only be empty or PROXY`);
  }
  const tcp = protocol === 'TCP';
  return {
    ok: true,
    entry: {
      port,
      protocol,
      namespace,
      name,
      servicePort,
      proxyProtocol: { decode: tcp && proxy.decode, encode: tcp && proxy.encode },
      ignoredProxyFields: !tcp && (proxy.decode || proxy.encode),
    },
  };
}

/** ingress-nginx's `tcp-<namespace>-<service>-<port>` (`udp-` for UDP), the port as the ConfigMap writes it. */
export function streamUpstreamName(entry: Pick<StreamServiceEntry, 'protocol' | 'namespace' | 'name' | 'servicePort'>): string {
  return `${entry.protocol.toLowerCase()}-${entry.namespace}-${entry.name}-${entry.servicePort}`;
}
