// Watches a folder tree for any change. Node 20's `fs.watch(dir, { recursive:
// true })` on Linux is a JavaScript emulation that loses a file for good once
// it is replaced by a rename (editors' atomic saves, `sed -i`, ConfigMap
// volume swaps), so each folder gets a plain watcher of its own instead.
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export class FolderWatcher {
  private readonly watchers = new Map<string, FSWatcher>();

  constructor(
    private readonly root: string,
    private readonly onChange: () => void,
    private readonly onError: (folder: string, error: Error) => void,
  ) {}

  /** Watches the root and every sub-folder not starting with a dot; forgets folders that are gone. */
  refresh(): void {
    const folders = new Set(listFolders(this.root));
    for (const [folder, watcher] of this.watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, () => this.onChange());
        watcher.on('error', (error) => this.onError(folder, error));
        this.watchers.set(folder, watcher);
      } catch (error) {
        this.onError(folder, error as Error);
      }
    }
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

function listFolders(root: string): string[] {
  const folders = [root];
  for (let i = 0; i < folders.length; i++) {
    const folder = folders[i] as string;
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        if (entry.isDirectory() && !entry.name.startsWith('.')) folders.push(join(folder, entry.name));
      }
    } catch {
      // gone since it was listed; its parent's watcher reports the change
    }
  }
  return folders;
}
