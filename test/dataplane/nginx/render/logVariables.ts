// The log variables a location block sets, as ingress-nginx's names: its
// $proxy_upstream_name and the fields of its $portico_location
// (renderLogVariables.ts), for assertions.
import type { ParsedDirective } from './nginxConfTokenizer.js';

const FIELDS = ['$namespace', '$ingress_name', '$service_name', '$service_port'] as const;

/** `set` arguments of `block` as variable -> value, with $portico_location split into its fields (the names have no space). */
export function logVariables(block: ParsedDirective): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const directive of block.children ?? []) {
    if (directive.name !== 'set') continue;
    const [name = '', value = ''] = directive.args;
    if (name !== '$portico_location') {
      variables[name] = value;
      continue;
    }
    let rest = value;
    for (const field of FIELDS) {
      const space = rest.indexOf(' ');
      if (space === -1) throw new Error(`$portico_location without its ${field}: ${JSON.stringify(value)}`);
      variables[field] = rest.slice(0, space);
      rest = rest.slice(space + 1);
    }
    variables.$location_path = rest;
  }
  return variables;
}
