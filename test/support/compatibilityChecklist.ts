// The project's compatibility checklist (shared/reference/compatibility-checklist.md,
// beside the checkout or above a worktree of it): every ingress-nginx annotation by
// section and every global ConfigMap key. Tests hold Portico's copies of those lists
// against it when it is there; a checkout without it skips them.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKLIST = join('shared', 'reference', 'compatibility-checklist.md');

export interface CompatibilityChecklist {
  /** Section → annotation names, in the checklist's order. */
  annotationSections: Record<string, string[]>;
  configMapKeys: string[];
}

/** The checklist found in the nearest folder above the repository that has one, or undefined. */
export function findChecklistFile(): string | undefined {
  let folder = fileURLToPath(new URL('../../', import.meta.url));
  for (;;) {
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
    if (existsSync(join(folder, CHECKLIST))) return join(folder, CHECKLIST);
  }
}

export function parseChecklist(text: string): CompatibilityChecklist {
  const annotationSections: Record<string, string[]> = {};
  const configMapKeys: string[] = [];
  for (const line of text.split('\n')) {
    // - **section**: `name` ✓, `name` ✗, `name` (snippet)
    const section = /^- \*\*([a-z0-9-]+)\*\*: (.*)$/.exec(line);
    if (section) annotationSections[section[1] ?? ''] = [...(section[2] ?? '').matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1] ?? '');
    // | `key` | type | default | Portico |
    const key = /^\| `([a-z0-9-]+)` \|/.exec(line);
    if (key) configMapKeys.push(key[1] ?? '');
  }
  return { annotationSections, configMapKeys };
}

/** The parsed checklist, or why a test comparing against it is skipped. */
export function loadChecklist(): { checklist: CompatibilityChecklist; skip?: undefined } | { checklist?: undefined; skip: string } {
  const file = findChecklistFile();
  if (file === undefined) return { skip: `no ${CHECKLIST} above the repository` };
  return { checklist: parseChecklist(readFileSync(file, 'utf8')) };
}
