// Feeds the store from a folder of YAML manifests instead of a cluster
// (`--manifests DIR`). Every change lists the folder, reads again only the
// files that changed (manifestFileCache.ts) and replaces each kind's complete
// set, so edits, renames and deletions need no special cases.
import { readdirSync, statSync } from 'node:fs';
import { FolderWatcher } from './folderWatcher.js';
import { ManifestFileCache, type ManifestFile } from './manifestFileCache.js';
import { join } from 'node:path';
import { KINDS, objectKey, type Kind, type KindTypes } from '../../kube/objects.js';
import type { Logger } from '../../log/logger.js';
import type { ObjectSink } from '../../store/objectSink.js';
import { parseFirstLoad } from './parallelParse.js';
import { formatPosition, manifestError, type ManifestError, type ManifestObject } from './parseManifests.js';

/** Where each kind's objects go; kinds without a sink are read (and checked) but not delivered. */
export type ManifestSinks = { [K in Kind]?: ObjectSink<KindTypes[K]> };

export interface ManifestSourceOptions {
  dir: string;
  sinks: ManifestSinks;
  logger: Logger;
  /** Quiet time after the last change before re-reading, so one save (or `cp -r`) loads once. */
  debounceMs?: number;
}

export class ManifestSource {
  private readonly dir: string;
  private readonly sinks: ManifestSinks;
  private readonly logger: Logger;
  private readonly debounceMs: number;
  private watcher: FolderWatcher | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly cache = new ManifestFileCache();
  /** Whether the last pass loaded (false after the folder could not be read: the next pass loads in full). */
  private loaded = false;
  private currentErrors: readonly ManifestError[] = [];
  private stopped = false;
  /** The first load is under way (on worker threads, or in slices between turns): a change meanwhile reloads after it. */
  private firstLoading = false;
  private reloadAfterFirst = false;
  /** Ends the first load's parse workers at stop(). */
  private readonly stopping = new AbortController();

  constructor(options: ManifestSourceOptions) {
    this.dir = options.dir;
    this.sinks = options.sinks;
    this.logger = options.logger;
    this.debounceMs = options.debounceMs ?? 100;
  }

  /** Loads the folder and starts watching it; rejects when the folder is missing. */
  async start(): Promise<void> {
    if (this.watcher) throw new Error('ManifestSource already started');
    let isDirectory: boolean;
    try {
      isDirectory = statSync(this.dir).isDirectory();
    } catch (error) {
      throw new Error(`manifests folder ${this.dir}: ${(error as Error).message}`);
    }
    if (!isDirectory) throw new Error(`manifests folder ${this.dir} is not a folder`);
    // Watch before the first read so a change made during it is not missed.
    this.watcher = new FolderWatcher(
      this.dir,
      () => this.scheduleReload(),
      (folder, error) => this.logger.error({ dir: folder, err: error }, 'watching a manifests folder failed'),
    );
    await this.firstLoad();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearTimeout(this.reloadTimer);
    this.watcher?.close();
  }

  /** The problems found by the latest read of the folder. */
  errors(): readonly ManifestError[] {
    return this.currentErrors;
  }

  private scheduleReload(): void {
    if (this.stopped) return;
    if (this.firstLoading) {
      this.reloadAfterFirst = true;
      return;
    }
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.reload(), this.debounceMs);
  }

  // Synchronous reads: a load is one uninterrupted step, so loads never
  // interleave and stop() has nothing in flight to wait for. Parsing is
  // synchronous CPU work anyway; only the first load's, all of the folder,
  // goes to worker threads or yields (firstLoad).
  private reload(): void {
    if (this.stopped) return;
    const paths = this.listPaths();
    if (paths === undefined) return;
    const pass = this.cache.read(paths);
    // Editors' swap files and atomic ConfigMap-volume swaps fire events
    // without changing any manifest: skip those, and don't repeat the logs.
    if (this.loaded && !pass.changed) return;
    this.loaded = true;
    this.load(pass.files, { read: pass.read, parsed: pass.parsed });
  }

  /** The first read, parsed without holding the event loop (parallelParse.ts); the cache and the sinks change only at its end. */
  private async firstLoad(): Promise<void> {
    const paths = this.listPaths();
    if (paths === undefined) return;
    const pass = this.cache.scan(paths);
    this.firstLoading = true;
    let parsed;
    try {
      parsed = await parseFirstLoad(
        pass.texts,
        (error) => this.logger.warn({ dir: this.dir, err: error }, 'a parse worker failed; its files were parsed on the main thread'),
        this.stopping.signal,
      );
    } finally {
      this.firstLoading = false;
    }
    if (this.stopped) return;
    const read = pass.finish(parsed);
    this.loaded = true;
    this.load(read.files, { read: read.read, parsed: read.parsed });
    if (this.reloadAfterFirst) {
      this.reloadAfterFirst = false;
      this.scheduleReload();
    }
  }

  /** The folder's manifest files, or undefined (logged, and the next pass loads in full) when it cannot be read. */
  private listPaths(): string[] | undefined {
    this.watcher?.refresh(); // sub-folders come and go
    try {
      return listManifestFiles(this.dir);
    } catch (error) {
      // Keep serving what was loaded: the folder may be mid-replacement. The
      // next successful read loads in full, even if nothing changed.
      const folderError = manifestError({ file: this.dir }, `cannot read the manifests folder: ${(error as Error).message}`);
      this.loaded = false;
      this.currentErrors = [folderError];
      this.logger.error({ file: this.dir }, folderError.message);
      return undefined;
    }
  }

  private load(files: readonly ManifestFile[], work: { read: number; parsed: number }): void {
    const objects: ManifestObject[] = [];
    const errors: ManifestError[] = [];
    const firstSeen = new Map<string, ManifestObject>();
    for (const file of files) {
      const parsed = file.parsed;
      if (parsed === undefined) {
        errors.push(manifestError({ file: file.path }, `cannot read the file: ${file.readError}`));
        continue;
      }
      errors.push(...parsed.errors);
      for (const entry of parsed.objects) {
        const identity = `${entry.kind} ${objectKey(entry.object)}`;
        const first = firstSeen.get(identity);
        if (first) {
          errors.push(manifestError(entry.position, `duplicate ${identity}; keeping the one from ${formatPosition(first.position)}`));
          continue;
        }
        firstSeen.set(identity, entry);
        objects.push(entry);
      }
    }

    this.currentErrors = errors;
    for (const error of errors) this.logger.error({ file: error.file }, error.message);
    for (const kind of KINDS) this.deliver(kind, objects);
    this.logger.info(
      { dir: this.dir, files: files.length, read: work.read, parsed: work.parsed, objects: objects.length, errors: errors.length },
      'loaded manifests',
    );
  }

  private deliver<K extends Kind>(kind: K, objects: readonly ManifestObject[]): void {
    // Tagged with `kind`, so each object is a KindTypes[K] (TypeScript cannot follow the filter).
    const ofKind = objects.filter((entry) => entry.kind === kind).map((entry) => entry.object as KindTypes[K]);
    this.sinks[kind]?.replace(ofKind);
  }
}

/**
 * Every `*.yaml` and `*.yml` file under `root`, sorted so that "first wins"
 * among duplicates is stable. Dot-entries are skipped: editor swap files, and a
 * mounted ConfigMap's `..data` folders (which would double every file).
 * Symlinked folders are not followed, so a link loop cannot trap the walk.
 */
export function listManifestFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(entry.name) && isFile(path)) found.push(path);
    }
  };
  walk(root);
  return found.sort();
}

/** A regular file, or a symlink to one (a mounted ConfigMap's keys are symlinks). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false; // a dangling symlink, or gone since the folder was listed
  }
}
