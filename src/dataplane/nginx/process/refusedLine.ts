// Where in its configuration nginx found what it refused. nginx stops at the
// first error and names the place: `[emerg] unknown directive "x" in
// /prefix/conf/nginx.conf:42`. Errors in other files (an included
// mime.types) or without a place (a port in use) name no line of ours, with
// one exception found in the text itself: a cipher list OpenSSL refuses.

/** The line of `configFile` the first failure in `error` names, if any; `text` (the file's) for failures nginx names no place for. */
export function refusedLine(error: string, configFile: string, text?: string): number | undefined {
  const marker = ` in ${configFile}:`;
  for (const line of error.split('\n')) {
    const at = line.lastIndexOf(marker);
    if (at === -1) continue;
    const number = /^\d+$/.exec(line.slice(at + marker.length).trimEnd());
    if (number !== null) return Number(number[0]);
  }
  return text === undefined ? undefined : cipherListLine(error, text);
}

/**
 * nginx applies `ssl_ciphers` (and `proxy_ssl_ciphers`, `grpc_ssl_ciphers`) when it
 * merges the server or location, and reports a list OpenSSL refuses ("no cipher
 * match": `AES128-SHA:!AES128-SHA`) without a place, but with the list. The first
 * line setting exactly that list is blamed: the http block's (the ConfigMap's)
 * comes first, so an Ingress is blamed only for a list the ConfigMap does not have.
 */
function cipherListLine(error: string, text: string): number | undefined {
  const refused = /SSL_CTX_set_cipher_list\("([^"\\\n]*)"\) failed/.exec(error)?.[1];
  if (refused === undefined) return undefined;
  const lines = text.split('\n');
  const at = lines.findIndex((line) => /^\s*(?:proxy_|grpc_)?ssl_ciphers "(.*)";$/.exec(line)?.[1] === refused);
  return at === -1 ? undefined : at + 1;
}

/** nginx refused a configuration; `line` is the line of its text it named, when it named one. */
export class ConfigRefusedError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'ConfigRefusedError';
  }
}
