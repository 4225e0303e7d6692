// ssl-ciphers: an OpenSSL cipher list checked word by word. OpenSSL ignores a
// word it does not know, but fails when the list selects no cipher, and then
// nginx -t fails and no later configuration is loaded; so an unknown word (a
// typo that silently drops a cipher) and a list without one cipher are refused.
// Not modelled: a list whose every selected cipher a later "!" or "-" removes
// again (`AES128-SHA:!AES128-SHA`); OpenSSL's ordering rules are not repeated here.
import { OPENSSL_CIPHER_NAMES, OPENSSL_EMPTY_ALIASES, OPENSSL_SELECTING_ALIASES } from './opensslCipherWords.js';
import { quoteValue, type ValueParser } from './valueSyntax.js';

/** Words that can select ciphers. */
const SELECTING = new Set([...OPENSSL_CIPHER_NAMES, ...OPENSSL_SELECTING_ALIASES]);
const KNOWN = new Set([...SELECTING, ...OPENSSL_EMPTY_ALIASES]);

/** `@STRENGTH`, and `@SECLEVEL=n` with OpenSSL's levels 0 to 5 (6 or more fails "invalid command"). */
const COMMAND = /^@(?:STRENGTH|SECLEVEL=[0-5])$/;

const EXPECTED = 'an OpenSSL cipher list such as HIGH:!aNULL:!MD5, of cipher names, aliases, "!", "-", "+", @STRENGTH and @SECLEVEL=n';

export const parseSslCiphers: ValueParser<string> = (text) => {
  let selects = false;
  // OpenSSL's separators are ":", "," and " "; empty elements are skipped.
  for (const element of text.split(/[:, ]+/)) {
    if (element === '') continue;
    if (element.startsWith('@')) {
      if (!COMMAND.test(element)) return { ok: false, expected: `${EXPECTED}; ${quoteValue(element)} is not an OpenSSL command` };
      continue;
    }
    const operator = /^[!+-]/.test(element) ? element.charAt(0) : '';
    // "+" joins words into one that matches ciphers having all of them (ECDHE+AESGCM).
    const words = element.slice(operator.length).split('+');
    const unknown = words.find((word) => !KNOWN.has(word));
    if (unknown !== undefined) {
      return { ok: false, expected: `${EXPECTED}; ${quoteValue(unknown)} is not a cipher or alias OpenSSL knows` };
    }
    if (operator === '' && words.every((word) => SELECTING.has(word))) selects = true;
  }
  return selects ? { ok: true, value: text } : { ok: false, expected: `${EXPECTED}, selecting at least one cipher this OpenSSL has` };
};
