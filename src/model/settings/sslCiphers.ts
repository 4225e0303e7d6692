// ssl-ciphers: an OpenSSL cipher list checked word by word. OpenSSL ignores a
// word it does not know, but fails when the list selects no cipher, and then
// nginx -t fails and no later configuration is loaded; so a list without one
// cipher is always refused, and the ConfigMap's key also refuses an unknown
// word (a typo that silently drops a cipher). The ssl-ciphers annotation only
// warns about one (tlsCipherAnnotations.ts), as OpenSSL and ingress-nginx accept it.
// Not modelled: a list whose every selected cipher a later "!" or "-" removes
// again (`AES128-SHA:!AES128-SHA`); OpenSSL's ordering rules are not repeated here.
import { OPENSSL_CIPHER_NAMES, OPENSSL_EMPTY_ALIASES, OPENSSL_SELECTING_ALIASES } from './opensslCipherWords.js';
import { quoteValue, type ParsedValue, type ValueParser } from './valueSyntax.js';

/** Words that can select ciphers. */
const SELECTING = new Set([...OPENSSL_CIPHER_NAMES, ...OPENSSL_SELECTING_ALIASES]);
const KNOWN = new Set([...SELECTING, ...OPENSSL_EMPTY_ALIASES]);

/** `@STRENGTH`, and `@SECLEVEL=n` with OpenSSL's levels 0 to 5 (6 or more fails "invalid command"). */
const COMMAND = /^@(?:STRENGTH|SECLEVEL=[0-5])$/;

const EXPECTED = 'an OpenSSL cipher list such as HIGH:!aNULL:!MD5, of cipher names, aliases, "!", "-", "+", @STRENGTH and @SECLEVEL=n';

/** A list OpenSSL accepts, with the words in it that OpenSSL does not know (and skips). */
export interface CipherListCheck {
  unknownWords: string[];
}

interface Analysis {
  /** Why OpenSSL would fail on the list whatever it selects. */
  problem: string | undefined;
  unknownWords: string[];
  selects: boolean;
}

function analyze(text: string): Analysis {
  let selects = false;
  const unknownWords: string[] = [];
  // OpenSSL's separators are ":", "," and " "; empty elements are skipped. An "@" ends
  // a word and starts a command (`RC4+RSA@STRENGTH` is `RC4+RSA:@STRENGTH`).
  for (const element of text.split(/[:, ]+/).flatMap((part) => part.split(/(?=@)/))) {
    if (element === '') continue;
    if (element.startsWith('@')) {
      if (!COMMAND.test(element)) return { problem: `${quoteValue(element)} is not an OpenSSL command`, unknownWords, selects };
      continue;
    }
    const operator = /^[!+-]/.test(element) ? element.charAt(0) : '';
    // "+" joins words into one that matches ciphers having all of them (ECDHE+AESGCM).
    const words = element.slice(operator.length).split('+');
    // OpenSSL fails on an empty word ("invalid command"): `HIGH+`, a lone "!".
    if (words.includes('')) return { problem: `${quoteValue('')} is not a cipher or alias OpenSSL knows`, unknownWords, selects };
    unknownWords.push(...words.filter((word) => !KNOWN.has(word) && !unknownWords.includes(word)));
    if (operator === '' && words.every((word) => SELECTING.has(word))) selects = true;
  }
  return { problem: undefined, unknownWords, selects };
}

const NOTHING_SELECTED = `${EXPECTED}, selecting at least one cipher this OpenSSL has`;

/** Whether OpenSSL would accept the list (every command valid, a cipher selected), and which words it would skip. */
export function checkSslCiphers(text: string): ParsedValue<CipherListCheck> {
  const { problem, unknownWords, selects } = analyze(text);
  if (problem !== undefined) return { ok: false, expected: `${EXPECTED}; ${problem}` };
  return selects ? { ok: true, value: { unknownWords } } : { ok: false, expected: NOTHING_SELECTED };
}

/** The ConfigMap's ssl-ciphers: as checkSslCiphers, and every word known. */
export const parseSslCiphers: ValueParser<string> = (text) => {
  const { problem, unknownWords, selects } = analyze(text);
  const unknown = unknownWords[0];
  if (problem === undefined && unknown !== undefined) {
    return { ok: false, expected: `${EXPECTED}; ${quoteValue(unknown)} is not a cipher or alias OpenSSL knows` };
  }
  if (problem !== undefined) return { ok: false, expected: `${EXPECTED}; ${problem}` };
  return selects ? { ok: true, value: text } : { ok: false, expected: NOTHING_SELECTED };
};
