// nginx variables Portico defines, by name, so every module spells them the same.

/** Defined by `map`s in the http block (renderHttp.ts). */
export const HttpVariable = {
  connectionUpgrade: '$connection_upgrade',
  requestId: '$req_id',
  thisHost: '$this_host',
  bestHttpHost: '$best_http_host',
  passAccessScheme: '$pass_access_scheme',
  passServerPort: '$pass_server_port',
  /** $best_http_host without its port, for redirects to HTTPS. */
  redirectHost: '$redirect_host',
  hstsHeader: '$hsts_header',
} as const;
