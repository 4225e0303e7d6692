// The log nginx writes its master's events to for Portico (see
// nginxArguments.ts), read by polling: a regular file never blocks nginx,
// whatever Portico's event loop is doing, where a pipe would once full.
import { open, stat, truncate, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_INTERVAL_MS = 25;

export class ControlLog {
  constructor(readonly path: string) {}

  /**
   * Empties the log (creating it if needed). nginx opens it O_APPEND, so its
   * next line lands at the new end rather than past a hole.
   */
  async clear(): Promise<void> {
    const handle = await open(this.path, 'a');
    await handle.close();
    await truncate(this.path, 0);
  }

  /** Empties the log once it is larger than `maxBytes`. Safe between operations: each reads only what is logged during it. */
  async trim(maxBytes: number): Promise<void> {
    const size = await stat(this.path).then(
      (stats) => stats.size,
      () => 0,
    );
    if (size > maxBytes) await truncate(this.path, 0);
  }

  /** A reader of the lines appended from now on. Close it when done. */
  async follow(): Promise<ControlLogFollower> {
    const handle = await open(this.path, 'a+');
    return new ControlLogFollower(handle, (await handle.stat()).size);
  }
}

/** Why `readUntil` returned. */
export type ReadEnd = 'found' | 'deadline' | 'interrupted';

export class ControlLogFollower {
  private partialLine = '';
  /** Complete lines read from the file but not yet returned (those after a match). */
  private unreturned: string[] = [];
  private readonly buffer = Buffer.alloc(64 * 1024);
  // Keeps a character split between two reads whole.
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly handle: FileHandle,
    private offset: number,
  ) {}

  /**
   * Reads complete lines until one satisfies `isLast` (it is included), the
   * deadline passes, or `interrupted()` turns true (a lost process); returns
   * the lines read either way.
   */
  async readUntil(
    isLast: (line: string) => boolean,
    deadline: number,
    interrupted: () => boolean,
  ): Promise<{ lines: string[]; end: ReadEnd }> {
    const lines: string[] = [];
    for (;;) {
      this.unreturned.push(...(await this.readLines()));
      for (let line = this.unreturned.shift(); line !== undefined; line = this.unreturned.shift()) {
        lines.push(line);
        if (isLast(line)) return { lines, end: 'found' };
      }
      // Checked after a read, so lines written just before an exit are seen.
      if (interrupted()) return { lines: [...lines, ...(await this.readLines())], end: 'interrupted' };
      if (Date.now() >= deadline) return { lines, end: 'deadline' };
      await sleep(POLL_INTERVAL_MS);
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private async readLines(): Promise<string[]> {
    let text = '';
    for (;;) {
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      text += this.decoder.write(this.buffer.subarray(0, bytesRead));
    }
    const lines = (this.partialLine + text).split('\n');
    this.partialLine = lines.pop() ?? '';
    return lines;
  }
}
