// A reader of nginx configuration text that follows nginx's own tokenizer
// (ngx_conf_read_token in src/core/ngx_conf_file.c), written independently of
// the renderer so tests can check what nginx would actually see.

/** A directive as nginx parses it: arguments unquoted and unescaped; children for blocks. */
export interface ParsedDirective {
  name: string;
  args: string[];
  children?: ParsedDirective[];
}

export type Token = { type: 'word' | 'comment'; value: string } | { type: ';' | '{' | '}' };

const SPACE = new Set([' ', '\t', '\r', '\n']);

/** Splits nginx configuration text into words, comments (text after `#`) and `;`, `{`, `}`. */
export function tokenizeNginxConf(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const ch = source.charAt(at);
    if (SPACE.has(ch)) {
      at++;
    } else if (ch === '#') {
      const end = source.indexOf('\n', at);
      tokens.push({ type: 'comment', value: source.slice(at + 1, end === -1 ? source.length : end) });
      at = end === -1 ? source.length : end + 1;
    } else if (ch === ';' || ch === '{' || ch === '}') {
      tokens.push({ type: ch });
      at++;
    } else if (ch === '"' || ch === "'") {
      const end = quotedEnd(source, at);
      tokens.push({ type: 'word', value: unescape(source.slice(at + 1, end)) });
      at = end + 1;
      // nginx wants a separator right after a closing quote.
      const next = source.charAt(at);
      if (at < source.length && !SPACE.has(next) && next !== ';' && next !== '{' && next !== ')') {
        throw new Error(`unexpected ${JSON.stringify(next)} after a quoted string at offset ${at}`);
      }
    } else {
      const end = wordEnd(source, at);
      tokens.push({ type: 'word', value: unescape(source.slice(at, end)) });
      at = end;
    }
  }
  return tokens;
}

/** Offset of the quote closing the string that opens at `start` (a backslash escapes any character). */
function quotedEnd(source: string, start: number): number {
  const quote = source.charAt(start);
  for (let at = start + 1; at < source.length; at++) {
    const ch = source.charAt(at);
    if (ch === '\\') at++;
    else if (ch === quote) return at;
  }
  throw new Error(`unterminated ${quote} string starting at offset ${start}`);
}

/** End of an unquoted word: whitespace, `;` or `{`, except the `{` of `${name}`. */
function wordEnd(source: string, start: number): number {
  let afterDollar = false;
  for (let at = start; at < source.length; at++) {
    const ch = source.charAt(at);
    if (ch === '{' && afterDollar) continue;
    afterDollar = ch === '$';
    if (ch === '\\') at++;
    else if (SPACE.has(ch) || ch === ';' || ch === '{') return at;
  }
  return source.length;
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "'": "'", '\\': '\\', n: '\n', r: '\r', t: '\t' };

// nginx resolves these escapes and keeps any other backslash with its character.
function unescape(raw: string): string {
  return raw.replace(/\\([\s\S])/g, (escape, ch: string) => ESCAPES[ch] ?? escape);
}

/** Parses nginx configuration text into its directive tree (comments dropped). */
export function parseNginxConf(source: string): ParsedDirective[] {
  const tokens = tokenizeNginxConf(source).filter((token) => token.type !== 'comment');
  let at = 0;

  const parseBlock = (closed: boolean): ParsedDirective[] => {
    const directives: ParsedDirective[] = [];
    let words: string[] = [];
    while (at < tokens.length) {
      const token = tokens[at++];
      if (token === undefined) break;
      if (token.type === 'word') {
        words.push(token.value);
        continue;
      }
      if (token.type === '}') {
        if (!closed || words.length > 0) throw new Error(`unexpected "}" (token ${at - 1})`);
        return directives;
      }
      const [name, ...args] = words;
      if (name === undefined) throw new Error(`unexpected "${token.type}" (token ${at - 1})`);
      directives.push(token.type === ';' ? { name, args } : { name, args, children: parseBlock(true) });
      words = [];
    }
    if (closed) throw new Error('unexpected end of file, expecting "}"');
    if (words.length > 0) throw new Error('unexpected end of file, expecting ";" or "}"');
    return directives;
  };

  return parseBlock(false);
}
