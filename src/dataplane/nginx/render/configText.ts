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

/**
 * The text of one render and the origin id of each line. Lines go into one
 * growing UTF-8 buffer as they are written (short-lived strings, no million
 * of them held until a join).
 */
export class ConfigText {
  // With room for the last chunk's worst case (3 bytes per unit): a buffer of the last length exactly
  // grew at the end of every render, copying all of the text (0.1 s at 10,000 Ingresses).
  #bytes = Buffer.allocUnsafe(lastLength + 3 * 2 * CHUNK_CHARS);
  #length = 0;
  #chunk = '';
  #origins = new Uint32Array(1024);
  #lines = 0;
  readonly #indents: string[] = [''];
  /** The writer whose block is innermost: only it may write (ConfigTextWriter refuses the others). */
  active: ConfigTextWriter | undefined;

  indent(depth: number): string {
    while (this.#indents.length <= depth) this.#indents.push(this.#indents[this.#indents.length - 1] + INDENT);
    return this.#indents[depth] as string;
  }

  line(text: string, origin: number): void {
    if (this.#lines === this.#origins.length) this.#origins = grown(this.#origins, this.#origins.length * 2);
    this.#origins[this.#lines++] = origin;
    this.#chunk += `${text}\n`;
    if (this.#chunk.length >= CHUNK_CHARS) this.#flush();
  }

  finish(): TracedConfig {
    this.#flush();
    lastLength = this.#length;
    return { text: this.#bytes.toString('utf8', 0, this.#length), lineOrigins: this.#origins.slice(0, this.#lines) };
  }

  #flush(): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    const needed = this.#length + this.#chunk.length * 3;
    if (needed > this.#bytes.length) {
      const bytes = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
      this.#bytes.copy(bytes, 0, 0, this.#length);
      this.#bytes = bytes;
    }
    this.#length += this.#bytes.write(this.#chunk, this.#length, 'utf8');
    this.#chunk = '';
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
  readonly #text: ConfigText;
  readonly #depth: number;
  readonly #indent: string;
  /** The name and first argument of each directive (or block) written here, for hasDirective. */
  readonly #names: string[] = [];
  readonly #firsts: (string | undefined)[] = [];
  #written = 0;
  #verbatim = false;

  constructor(text: ConfigText, depth = 0) {
    this.#text = text;
    this.#depth = depth;
    this.#indent = text.indent(depth);
    if (depth === 0) text.active = this;
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
    const inner = this.#text.indent(this.#depth + 1);
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
