// main-, http-, server-, location-, modsecurity- and stream-snippet: kept,
// line breaks included, only while allow-snippet-annotations is "true".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGlobalSettings } from '../../../src/model/settings/parseGlobalSettings.js';

const parse = (data: Record<string, string>) => parseGlobalSettings(data, { cpus: 2 });
const KEYS = ['main-snippet', 'http-snippet', 'server-snippet', 'location-snippet', 'modsecurity-snippet', 'stream-snippet'];
const FIELDS = ['mainSnippet', 'httpSnippet', 'serverSnippet', 'locationSnippet', 'modsecuritySnippet', 'streamSnippet'] as const;

test('with allow-snippet-annotations "true", every snippet is kept as written, over several lines', () => {
  const snippet = 'add_header X-A "a" always;\n\tadd_header X-B "b" always;\r\n';
  const { settings, problems } = parse({ 'allow-snippet-annotations': 'true', ...Object.fromEntries(KEYS.map((key) => [key, snippet])) });
  assert.deepEqual(problems, []);
  for (const field of FIELDS) assert.equal(settings[field], snippet.trim());
});

test('without it (the default), the snippets are dropped with one problem naming them; the risk level does not matter', () => {
  const { settings, problems } = parse({ 'annotations-risk-level': 'Critical', 'http-snippet': 'a on;', 'location-snippet': 'b on;' });
  for (const field of FIELDS) assert.equal(settings[field], undefined);
  assert.deepEqual(problems, [
    'ConfigMap keys http-snippet, location-snippet: snippets are ignored unless the ConfigMap sets allow-snippet-annotations: "true"',
  ]);
  assert.deepEqual(
    parse({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Low', 'http-snippet': 'a on;' }).settings.httpSnippet,
    'a on;',
  );
});

test('an empty snippet is none; control characters other than line breaks and tabs are refused', () => {
  assert.deepEqual(parse({ 'http-snippet': '  ' }), parse({}));
  const { settings, problems } = parse({
    'allow-snippet-annotations': 'true',
    'http-snippet': 'a on;\u0000b on;',
    'server-snippet': 'x\ry',
  });
  assert.equal(settings.httpSnippet, undefined);
  assert.equal(settings.serverSnippet, undefined);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', /^ConfigMap key http-snippet: the value contains a control character \(U\+0000/);
  // Other keys still refuse a line break.
  assert.match(parse({ 'proxy-body-size': '1m\n' }).problems[0] ?? '', /control character/);
});
