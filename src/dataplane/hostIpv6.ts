// Whether this host can bind IPv6, as ingress-nginx decides whether to listen on
// [::] (internal/net IsIPv6Enabled): the kernel has IPv6 on and some interface has
// an IPv6 address. Read once at start by the data plane; the renderer stays pure.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

const DISABLE_IPV6 = '/proc/sys/net/ipv6/conf/all/disable_ipv6';

export function hostHasIpv6(): boolean {
  try {
    if (readFileSync(DISABLE_IPV6, 'utf8').trim() === '1') return false;
  } catch {
    return false;
  }
  return Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.family === 'IPv6'));
}
