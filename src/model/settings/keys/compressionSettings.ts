// use-gzip and gzip-*: gzip compression of responses, set once in the http
// block as ingress-nginx's template does (renderCompression.ts). The brotli-*
// keys need a module Debian's nginx lacks (ingressNginxConfigMapKeys.ts).
import { analyzePortableRegex, portableRegexSyntax } from '../portableRegex.js';
import type { SpecTable } from '../settingSpec.js';
import { integerParser, listParser, parseBoolean, parseNonNegativeInteger, type ValueParser } from '../valueSyntax.js';

export interface CompressionSettings {
  /** use-gzip */
  useGzip: boolean;
  /** gzip-level: gzip_comp_level, 1 (fastest) to 9 */
  gzipLevel: number;
  /** gzip-min-length: bytes (from Content-Length) below which a response is sent uncompressed */
  gzipMinLength: number;
  /** gzip-types: the MIME types compressed besides text/html (which nginx always compresses); `*` is any */
  gzipTypes: string[];
  /** gzip-disable: a regex on User-Agent (or nginx's `msie6`); undefined compresses for every client */
  gzipDisable: string | undefined;
}

/** ingress-nginx's gzip-types default (config.go). */
const DEFAULT_GZIP_TYPES = [
  'application/atom+xml',
  'application/javascript',
  'application/x-javascript',
  'application/json',
  'application/rss+xml',
  'application/vnd.ms-fontobject',
  'application/x-font-ttf',
  'application/x-web-app-manifest+json',
  'application/xhtml+xml',
  'application/xml',
  'font/opentype',
  'image/svg+xml',
  'image/x-icon',
  'text/css',
  'text/javascript',
  'text/plain',
  'text/x-component',
];

export const COMPRESSION_DEFAULTS: CompressionSettings = {
  useGzip: false,
  gzipLevel: 1,
  gzipMinLength: 256,
  gzipTypes: DEFAULT_GZIP_TYPES,
  gzipDisable: undefined,
};

/** RFC 6838's restricted-name characters for type and subtype (what nginx's mime.types holds), 127 each at most. */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#&^_.+-]{0,126}$/;

/** A MIME type `type/subtype`, as default_type and gzip_types take it. */
export const parseMimeType: ValueParser<string> = (text) =>
  MIME_TYPE.test(text) ? { ok: true, value: text } : { ok: false, expected: 'a MIME type such as text/html' };

const parseGzipType: ValueParser<string> = (text) => {
  if (text === '*') return { ok: true, value: text };
  const parsed = parseMimeType(text);
  return parsed.ok ? parsed : { ok: false, expected: `"*" or ${parsed.expected}` };
};

/** gzip_types needs at least one argument. */
const parseGzipTypes: ValueParser<string[]> = (text) => {
  const parsed = listParser(' ', parseGzipType, 'MIME types')(text);
  return parsed.ok && parsed.value.length === 0 ? { ok: false, expected: 'at least one MIME type, or "*"' } : parsed;
};

/** gzip_disable's regexes run against every request's User-Agent: the portable, non-backtracking subset. */
const MAX_GZIP_DISABLE_LENGTH = 256;

/** gzip-disable: "" (none), `msie6`, or one regex (ingress-nginx quotes the whole value as one argument). */
const parseGzipDisable: ValueParser<string | undefined> = (text) => {
  if (text === '') return { ok: true, value: undefined };
  const analysis = analyzePortableRegex(text, MAX_GZIP_DISABLE_LENGTH);
  if (analysis.ok) return { ok: true, value: text };
  return { ok: false, expected: `"msie6" or ${portableRegexSyntax(MAX_GZIP_DISABLE_LENGTH)}; ${analysis.problem}` };
};

export const COMPRESSION_SPECS: SpecTable<CompressionSettings> = {
  useGzip: { key: 'use-gzip', parse: parseBoolean },
  gzipLevel: { key: 'gzip-level', parse: integerParser(1, 9) },
  gzipMinLength: { key: 'gzip-min-length', parse: parseNonNegativeInteger },
  gzipTypes: { key: 'gzip-types', parse: parseGzipTypes },
  gzipDisable: { key: 'gzip-disable', parse: parseGzipDisable },
};
