// The one place that lays out nginx.conf text: one directive per line, blocks
// indented, a blank line before a block that follows a sibling. The builder
// (configBuilder.ts) writes into it as it goes, so a render holds the text
// being written and nothing else: no directive tree, no array of lines (at
// 10,000 Ingresses, about 1.9 million of them). Arguments arrive validated by the
// builder; nothing here checks or escapes.
import type { Argument } from './arguments.js';
import type { TracedConfig } from './configOrigins.js';
import type { LuaCall } from './luaCall.js';

// One space a level, not four: nginx ignores indentation, and at 10,000 Ingresses four
// spaces a level were about 4.4 MB of the 17 MB file (issue 18); one space still shows the nesting.
const INDENT = ' ';
/** Lines are joined into a short string of about this many characters, then copied into the buffer at once. */
const CHUNK_CHARS = 8192;
/** The size of the last render's text: the next one starts with a buffer that holds it. */
let lastLength = 1 << 20;
const INDENTS: string[] = [''];
const NEWLINE = 0x0a;

function indentOf(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(INDENTS[INDENTS.length - 1] + INDENT);
  return INDENTS[depth] as string;
}

/**
 * Lines written apart from a render and put into one later (a server block
 * the render cache keeps, serverTextCache.ts): their UTF-8 text, and each
 * line's origin id in `origins`, the piece's own table.
 */
export interface ConfigPiece {
  readonly bytes: Buffer;
  readonly lineOrigins: Uint32Array;
  /** The names and first arguments of the directives and blocks at the piece's own depth (for hasDirective). */
  readonly heads: ReadonlyArray<readonly [name: string, first: string | undefined]>;
}

/** Where a ConfigTextWriter's lines go: a whole render's text, or a piece of one. */
interface LineSink {
  /** The writer whose block is innermost: only it may write (ConfigTextWriter refuses the others). */
  active: ConfigTextWriter | undefined;
  line(text: string, origin: number): void;
}

/**
 * The text of one render and the origin id of each line. Lines go into one
 * growing UTF-8 buffer as they are written (short-lived strings, no million
 * of them held until a join).
 */
export class ConfigText implements LineSink {
  // With room for the last chunk's worst case (3 bytes per unit): a buffer of the last length exactly
  // grew at the end of every render, copying all of the text (0.1 s at 10,000 Ingresses).
  #bytes = Buffer.allocUnsafe(lastLength + 3 * 2 * CHUNK_CHARS);
  #length = 0;
  #chunk = '';
  #origins = new Uint32Array(1024);
  #lines = 0;
  active: ConfigTextWriter | undefined;

  line(text: string, origin: number): void {
    if (this.#lines === this.#origins.length) this.#origins = grown(this.#origins, this.#origins.length * 2);
    this.#origins[this.#lines++] = origin;
    this.#chunk += `${text}\n`;
    if (this.#chunk.length >= CHUNK_CHARS) this.#flush();
  }

  /**
   * A piece's lines, its origin ids translated by `originIds` (the piece's id → this text's), after a blank
   * line of origin `blankLineOrigin` when defined. Byte copies only: a Buffer write per piece cost more than its copy.
   */
  append(piece: ConfigPiece, originIds: Uint32Array, blankLineOrigin: number | undefined): void {
    if (this.#chunk !== '') this.#flush();
    const lines = piece.lineOrigins.length + (blankLineOrigin === undefined ? 0 : 1);
    if (this.#lines + lines > this.#origins.length) {
      this.#origins = grown(this.#origins, Math.max(this.#origins.length * 2, this.#lines + lines));
    }
    if (this.#length + piece.bytes.length + 1 > this.#bytes.length) this.#grow(this.#length + piece.bytes.length + 1);
    if (blankLineOrigin !== undefined) {
      this.#origins[this.#lines++] = blankLineOrigin;
      this.#bytes[this.#length++] = NEWLINE;
    }
    for (const origin of piece.lineOrigins) this.#origins[this.#lines++] = originIds[origin] as number;
    this.#bytes.set(piece.bytes, this.#length);
    this.#length += piece.bytes.length;
  }

  finish(): TracedConfig {
    this.#flush();
    lastLength = this.#length;
    return { text: this.#bytes.toString('utf8', 0, this.#length), lineOrigins: this.#origins.slice(0, this.#lines) };
  }

  #flush(): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    const needed = this.#length + this.#chunk.length * 3;
    if (needed > this.#bytes.length) this.#grow(needed);
    this.#length += this.#bytes.write(this.#chunk, this.#length, 'utf8');
    this.#chunk = '';
  }

  #grow(needed: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
    this.#bytes.copy(bytes, 0, 0, this.#length);
    this.#bytes = bytes;
  }
}

/** The lines of a piece as they are written, until `finish` (a piece is small: a string and an array suffice). */
export class ConfigPieceText implements LineSink {
  #text = '';
  readonly #origins: number[] = [];
  active: ConfigTextWriter | undefined;

  line(text: string, origin: number): void {
    this.#origins.push(origin);
    this.#text += `${text}\n`;
  }

  /** The piece; `top` is the writer it was written with (its heads are the piece's). */
  finish(top: ConfigTextWriter): ConfigPiece {
    return { bytes: Buffer.from(this.#text, 'utf8'), lineOrigins: Uint32Array.from(this.#origins), heads: top.heads };
  }
}

function grown(origins: Uint32Array, length: number): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(length);
  larger.set(origins);
  return larger;
}

/** `name arg arg`: the head of a directive or a block. */
export function directiveHead(name: string, args: readonly Argument[]): string {
  let head = name;
  for (const arg of args) head += ` ${arg.token}`;
  return head;
}

/**
 * The lines of one block's body (or of the top level), at one depth. A block
 * opened here hands the text to the writer of its body until it closes: a
 * write to an outer writer meanwhile would land inside the inner block, so it
 * is refused.
 */
export class ConfigTextWriter {
  readonly #text: LineSink;
  readonly #depth: number;
  readonly #indent: string;
  /** The name and first argument of each directive (or block) written here, for hasDirective. */
  readonly #names: string[] = [];
  readonly #firsts: (string | undefined)[] = [];
  #written = 0;
  #verbatim = false;

  /** The first writer of a text (depth 0, or a piece's depth) is its active one. */
  constructor(text: LineSink, depth = 0) {
    this.#text = text;
    this.#depth = depth;
    this.#indent = indentOf(depth);
    text.active ??= this;
  }

  directive(name: string, args: readonly Argument[], origin: number): void {
    const head = this.#head(name, args);
    this.#line(`${this.#indent}${head};`, origin);
  }

  block(name: string, args: readonly Argument[], origin: number, body: (inner: ConfigTextWriter) => void): void {
    const head = this.#head(name, args);
    if (this.#written > 0) this.#line('', origin);
    this.#line(`${this.#indent}${head} {`, origin);
    const inner = new ConfigTextWriter(this.#text, this.#depth + 1);
    this.#text.active = inner;
    try {
      body(inner);
    } finally {
      this.#text.active = this;
    }
    this.#line(`${this.#indent}}`, origin);
  }

  luaBlock(name: string, calls: readonly LuaCall[], origin: number): void {
    const head = this.#head(name, []);
    this.#line(`${this.#indent}${head} {`, origin);
    const inner = indentOf(this.#depth + 1);
    for (const call of calls) this.#line(`${inner}${call.code}`, origin);
    this.#line(`${this.#indent}}`, origin);
  }

  entry(key: Argument, values: readonly Argument[], origin: number): void {
    this.#line(`${this.#indent}${directiveHead(key.token, values)};`, origin);
  }

  verbatim(lines: readonly string[], origin: number): void {
    this.#verbatim = true;
    for (const line of lines) this.#line(line.trim() === '' ? '' : `${this.#indent}${line}`, origin);
  }

  /**
   * A piece written apart at this writer's depth (ConfigPieceText), as if its lines were written here:
   * the blank line `block` puts before a block that follows a sibling included.
   */
  piece(piece: ConfigPiece, originIds: Uint32Array): void {
    if (!(this.#text instanceof ConfigText)) throw new Error('a piece goes into a whole text, not into another piece');
    if (this.#text.active !== this) throw new Error('nginx configuration written to a block while another block is open');
    const first = piece.lineOrigins[0];
    if (first === undefined) return;
    const blankLineOrigin = this.#written > 0 ? originIds[first] : undefined;
    for (const [name, firstArgument] of piece.heads) {
      this.#names.push(name);
      this.#firsts.push(firstArgument);
    }
    this.#written += piece.lineOrigins.length + (blankLineOrigin === undefined ? 0 : 1);
    this.#text.append(piece, originIds, blankLineOrigin);
  }

  /** The names and first arguments of what was written here. */
  get heads(): Array<readonly [string, string | undefined]> {
    return this.#names.map((name, index) => [name, this.#firsts[index]] as const);
  }

  /** Whether a directive (or block) `name` whose first argument's token is `first` (any, when undefined) was written here. */
  hasDirective(name: string, first?: string): boolean {
    return this.#names.some((written, index) => written === name && (first === undefined || this.#firsts[index] === first));
  }

  /** Whether verbatim lines (a snippet) were written here. */
  get hasVerbatim(): boolean {
    return this.#verbatim;
  }

  #head(name: string, args: readonly Argument[]): string {
    this.#names.push(name);
    this.#firsts.push(args[0]?.token);
    return directiveHead(name, args);
  }

  #line(text: string, origin: number): void {
    if (this.#text.active !== this) throw new Error('nginx configuration written to a block while another block is open');
    this.#written++;
    this.#text.line(text, origin);
  }
}
