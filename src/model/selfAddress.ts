// Endpoints that are Portico itself. A backend that is the proxy's own port
// loops (every request becomes thousands of connections); one that is the
// status server would hand a tenant the configuration endpoint. The address
// is parsed the way the resolver and nginx read it (inet_aton's IPv4 forms,
// every IPv6 spelling, IPv4-mapped and -compatible forms), never compared as
// text: `0.0.0.0`, `0`, `127.1`, `2130706433`, `::ffff:7f00:1` all connect here.
import type { Endpoint } from './types.js';

/** An address as its bytes: 4 for IPv4, 16 for IPv6. */
export type AddressBytes = readonly number[];

/** What counts as self, from the controller's flags and the machine (passed in: this stays pure). */
export interface EndpointGuard {
  /** Every port Portico or its nginx listens on (http, https, default server, status, healthz, webhook, metrics listener...). */
  readonly porticoPorts: readonly number[];
  /** The machine's own interface addresses (os.networkInterfaces()), any spelling. */
  readonly interfaceAddresses: readonly string[];
  /**
   * Kubernetes mode: loopback and unspecified addresses are Portico's own pod at
   * every port. Manifest mode (examples/demo.yaml) proxies to loopback backends.
   */
  readonly refuseLoopbackEverywhere: boolean;
}

/** One IPv4 part as inet_aton reads it: decimal, octal (leading 0) or hex (0x). */
function ipv4Part(text: string): number | undefined {
  let value: number;
  if (/^0[xX][0-9a-fA-F]*$/.test(text)) value = text.length === 2 ? 0 : parseInt(text.slice(2), 16);
  else if (/^0[0-7]*$/.test(text)) value = parseInt(text, 8);
  else if (/^[1-9][0-9]*$/.test(text)) value = parseInt(text, 10);
  else return undefined;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * A dotted quad of decimal parts without leading zeros: what EndpointSlices
 * hold, read without inet_aton's general forms (the model checks 40,000
 * endpoints per sync at 10,000 Ingresses). `010` (octal) is not one.
 */
const PLAIN_DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

/** inet_aton: 1 to 4 parts; the last fills the bytes the others leave (`127.1` = 127.0.0.1, `2130706433` too). */
export function parseIpv4(text: string): AddressBytes | undefined {
  const plain = PLAIN_DOTTED_QUAD.exec(text);
  if (plain !== null) {
    const bytes = [Number(plain[1]), Number(plain[2]), Number(plain[3]), Number(plain[4])];
    return bytes.every((byte) => byte <= 255) ? bytes : undefined;
  }
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const values = parts.map(ipv4Part);
  if (values.some((value) => value === undefined)) return undefined;
  const numbers = values as number[];
  const last = numbers.pop()!;
  if (numbers.some((value) => value > 255) || last >= 2 ** (8 * (4 - numbers.length))) return undefined;
  const tail = [last >>> 24, (last >>> 16) & 255, (last >>> 8) & 255, last & 255].slice(numbers.length);
  return [...numbers, ...tail];
}

/** Every IPv6 spelling: compressed or full, with an embedded dotted IPv4 tail, in brackets, with a zone. */
export function parseIpv6(text: string): AddressBytes | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!bare.includes(':')) return undefined;
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): number[] | undefined => {
    if (half === '') return [];
    const groups: number[] = [];
    const pieces = half.split(':');
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes('.')) {
        // Only strict dotted quads here (inet_pton), not inet_aton's forms.
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return undefined;
        const bytes = piece.split('.').map(Number);
        if (bytes.some((byte) => byte > 255)) return undefined;
        groups.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        groups.push(parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.flatMap((group) => [group >> 8, group & 255]);
}

/** The address's bytes, or undefined when it is not an IP literal (a DNS name). */
export function parseAddress(text: string): AddressBytes | undefined {
  // Without a colon it is no IPv6 spelling (parseIpv6 would strip brackets and zone to find none).
  return text.includes(':') ? (parseIpv6(text) ?? parseIpv4(text)) : parseIpv4(text);
}

/** The IPv4 address an IPv6 one stands for: mapped `::ffff:a.b.c.d` and compatible `::a.b.c.d` (connect() accepts both). */
function embeddedIpv4(bytes: AddressBytes): AddressBytes | undefined {
  if (bytes.length !== 16 || bytes.slice(0, 10).some((byte) => byte !== 0)) return undefined;
  const marker = [bytes[10], bytes[11]];
  if ((marker[0] === 0xff && marker[1] === 0xff) || (marker[0] === 0 && marker[1] === 0)) return bytes.slice(12);
  return undefined;
}

/** Loopback (127/8, ::1) or unspecified (0/8, ::), also through an IPv4-mapped or -compatible form. */
export function isLoopbackOrUnspecified(bytes: AddressBytes): boolean {
  if (bytes.length === 16) {
    if (bytes.slice(0, 15).every((byte) => byte === 0) && (bytes[15] === 0 || bytes[15] === 1)) return true;
    const ipv4 = embeddedIpv4(bytes);
    return ipv4 !== undefined && isLoopbackOrUnspecified(ipv4);
  }
  return bytes[0] === 127 || bytes[0] === 0;
}

/** 0.0.0.0/8 or ::, also IPv4-mapped: connect() takes it for this machine at any port. */
export function isUnspecified(bytes: AddressBytes): boolean {
  if (bytes.length === 16 && bytes.slice(0, 15).every((byte) => byte === 0)) return bytes[15] === 0; // ::1 is loopback, not ::0.0.0.1
  const ipv4 = bytes.length === 4 ? bytes : embeddedIpv4(bytes);
  return ipv4 !== undefined ? ipv4[0] === 0 : bytes.every((byte) => byte === 0);
}

/** One form per address: IPv4 and its mapped/compatible IPv6 forms compare equal. */
function canonical(bytes: AddressBytes): string {
  return (embeddedIpv4(bytes) ?? bytes).join('.');
}

/**
 * Why the endpoint must not be proxied to, or undefined when it may. `address`
 * must be an IP literal: a name is refused (it is resolved before this check,
 * and nginx must never see one).
 */
export function selfEndpointReason(endpoint: Endpoint, guard: EndpointGuard): string | undefined {
  const bytes = parseAddress(endpoint.address);
  if (bytes === undefined) return 'is not an IP address';
  if (isUnspecified(bytes)) return 'is an unspecified address: this machine, never a backend';
  const local = isLoopbackOrUnspecified(bytes);
  if (local && guard.refuseLoopbackEverywhere) return 'is a loopback or unspecified address: Portico itself';
  if (!guard.porticoPorts.includes(endpoint.port)) return undefined;
  if (local) return `is Portico's own port ${endpoint.port}`;
  const own = new Set(
    guard.interfaceAddresses
      .map(parseAddress)
      .filter((parsed) => parsed !== undefined)
      .map(canonical),
  );
  return own.has(canonical(bytes)) ? `is this machine's address at Portico's own port ${endpoint.port}` : undefined;
}

/** The endpoints that may be proxied to, and a message for each refused one. */
export function refuseSelfEndpoints(endpoints: readonly Endpoint[], guard: EndpointGuard): { endpoints: Endpoint[]; refused: string[] } {
  const kept: Endpoint[] = [];
  const refused: string[] = [];
  for (const endpoint of endpoints) {
    const reason = selfEndpointReason(endpoint, guard);
    if (reason === undefined) kept.push(endpoint);
    else refused.push(`endpoint ${endpoint.address}:${endpoint.port} ${reason}`);
  }
  return { endpoints: kept, refused };
}
