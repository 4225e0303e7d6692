// Flags of the ports and addresses Portico and its nginx listen on.
import type { FlagDefinition } from './flagDefinition.js';

export const LISTEN_FLAGS = [
  { name: 'http-port', kind: 'int', default: 80, implemented: true, description: 'Port for HTTP traffic.' },
  { name: 'https-port', kind: 'int', default: 443, implemented: true, description: 'Port for HTTPS traffic.' },
  { name: 'default-server-port', kind: 'int', default: 8181, implemented: true, description: 'Internal port of the catch-all server.' },
  { name: 'healthz-port', kind: 'int', default: 10254, implemented: true, description: 'Port of the health check and metrics endpoint.' },
  {
    name: 'healthz-host',
    kind: 'string',
    default: '',
    implemented: true,
    description: 'Address the health check endpoint binds to; all addresses when empty.',
  },
  {
    name: 'status-port',
    kind: 'int',
    default: 10246,
    implemented: true,
    description: 'Local port of the nginx status and dynamic configuration endpoint.',
  },
  {
    name: 'stream-port',
    kind: 'int',
    default: 10247,
    implemented: false,
    description: 'Local port where TCP/UDP backends are sent to nginx; kept out of the TCP/UDP services ConfigMaps, as in ingress-nginx.',
    cannotApply:
      "ingress-nginx's Lua configuration server of the stream block listens there; Debian 12's nginx has no stream Lua module, so Portico writes the TCP/UDP endpoints into nginx.conf and listens on no such port (a TCP/UDP services entry still may not take it)",
  },
  {
    name: 'profiling',
    kind: 'bool',
    default: true,
    implemented: true,
    description:
      'Serve CPU profiles of the controller (V8, .cpuprofile) at /debug/pprof/profile?seconds=N on --profiler-address:--profiler-port.',
  },
  { name: 'profiler-port', kind: 'int', default: 10245, implemented: true, description: 'Port of the profiling endpoint.' },
  {
    name: 'profiler-address',
    kind: 'ip',
    default: '127.0.0.1',
    implemented: true,
    description: 'IP address the profiling endpoint binds to.',
  },
  {
    name: 'ssl-passthrough-proxy-port',
    kind: 'int',
    default: 442,
    implemented: true,
    description: 'Internal port nginx HTTPS moves to when SSL passthrough is on.',
  },
  {
    name: 'internal-logger-address',
    kind: 'string',
    default: '127.0.0.1:11514',
    implemented: false,
    description: 'Address of the internal syslog listener.',
    cannotApply:
      "ingress-nginx's nginx sends its error log to a syslog listener inside the controller; Portico's nginx writes its error log itself (error-log-path), so there is no listener",
  },
] as const satisfies readonly FlagDefinition[];
