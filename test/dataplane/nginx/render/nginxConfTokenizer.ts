// A reader of nginx configuration text that follows nginx's own tokenizer
// (ngx_conf_read_token in src/core/ngx_conf_file.c) and, for the bodies of
// `*_by_lua_block` directives, ngx_lua's (ngx_http_lua_conf_lua_block_parse),
// written independently of the renderer so tests can check what nginx would actually see.

/** A directive as nginx parses it: arguments unquoted and unescaped; children for blocks. */
export interface ParsedDirective {
  name: string;
  args: string[];
  children?: ParsedDirective[];
  /** For `*_by_lua_block`: the Lua body's lines, trimmed, without blank ones. */
  lua?: string[];
}

export type Token =
  | { type: 'word' | 'comment'; value: string }
  /** The raw text between the braces of a `*_by_lua_block`. */
  | { type: 'lua'; value: string }
  | { type: ';' | '{' | '}' };

const SPACE = new Set([' ', '\t', '\r', '\n']);

const LUA_BLOCK = /_by_lua_block$/;

/** Splits nginx configuration text into words, comments (text after `#`), Lua block bodies and `;`, `{`, `}`. */
export function tokenizeNginxConf(source: string): Token[] {
  const tokens: Token[] = [];
  /** The words of the directive being read. */
  let statement: string[] = [];
  let at = 0;
  while (at < source.length) {
    const ch = source.charAt(at);
    if (SPACE.has(ch)) {
      at++;
    } else if (ch === '#') {
      const end = source.indexOf('\n', at);
      tokens.push({ type: 'comment', value: source.slice(at + 1, end === -1 ? source.length : end) });
      at = end === -1 ? source.length : end + 1;
    } else if (ch === '{' && statement.length === 1 && LUA_BLOCK.test(statement[0] ?? '')) {
      // ngx_lua reads the body itself, as Lua: up to the brace that closes this one.
      const end = luaBlockEnd(source, at);
      tokens.push({ type: 'lua', value: source.slice(at + 1, end) });
      statement = [];
      at = end + 1;
    } else if (ch === ';' || ch === '{' || ch === '}') {
      tokens.push({ type: ch });
      statement = [];
      at++;
    } else if (ch === '"' || ch === "'") {
      const end = quotedEnd(source, at);
      const value = unescape(source.slice(at + 1, end));
      tokens.push({ type: 'word', value });
      statement.push(value);
      at = end + 1;
      // nginx wants a separator right after a closing quote.
      const next = source.charAt(at);
      if (at < source.length && !SPACE.has(next) && next !== ';' && next !== '{' && next !== ')') {
        throw new Error(`unexpected ${JSON.stringify(next)} after a quoted string at offset ${at}`);
      }
    } else {
      const end = wordEnd(source, at);
      const value = unescape(source.slice(at, end));
      tokens.push({ type: 'word', value });
      statement.push(value);
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

/**
 * Offset of the `}` that closes the Lua block opening at `open`: braces
 * counted as Lua tokens, so none inside a string, long string or comment counts.
 */
function luaBlockEnd(source: string, open: number): number {
  let depth = 0;
  for (let at = open; at < source.length; at++) {
    const ch = source.charAt(at);
    if (ch === '{') {
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0) return at;
    } else if (ch === '"' || ch === "'") {
      at = luaQuotedEnd(source, at);
    } else if (ch === '[' && longBracketLevel(source, at) !== undefined) {
      at = longBracketEnd(source, at);
    } else if (source.startsWith('--', at)) {
      const commentStart = at + 2;
      if (source.charAt(commentStart) === '[' && longBracketLevel(source, commentStart) !== undefined) {
        at = longBracketEnd(source, commentStart);
      } else {
        const end = source.indexOf('\n', commentStart);
        at = end === -1 ? source.length : end;
      }
    }
  }
  throw new Error(`unterminated Lua block starting at offset ${open}`);
}

function luaQuotedEnd(source: string, start: number): number {
  const quote = source.charAt(start);
  for (let at = start + 1; at < source.length; at++) {
    const ch = source.charAt(at);
    if (ch === '\\') at++;
    else if (ch === quote) return at;
    else if (ch === '\n') break;
  }
  throw new Error(`unterminated Lua string starting at offset ${start}`);
}

/** The number of `=` of a long bracket (`[[`, `[==[`) opening at `start`, or undefined when none does. */
function longBracketLevel(source: string, start: number): number | undefined {
  const match = /^\[(=*)\[/.exec(source.slice(start, start + 256));
  return match?.[1]?.length;
}

/** Offset of the last `]` of the long bracket opening at `start`. */
function longBracketEnd(source: string, start: number): number {
  const close = `]${'='.repeat(longBracketLevel(source, start) ?? 0)}]`;
  const end = source.indexOf(close, start);
  if (end === -1) throw new Error(`unterminated Lua long string starting at offset ${start}`);
  return end + close.length - 1;
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
      if (token.type === 'lua') {
        const [name, ...args] = words;
        if (name === undefined) throw new Error(`Lua block without a directive (token ${at - 1})`);
        directives.push({ name, args, lua: luaLines(token.value) });
        words = [];
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

function luaLines(body: string): string[] {
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
