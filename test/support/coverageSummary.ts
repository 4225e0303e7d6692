// The coverage of src/ that test/run.ts prints at the end of a run, from the
// lcov file of Node's test runner: the code the test processes ran themselves
// (the Portico processes they start run dist/, which is reported apart).

export interface FileCoverage {
  readonly file: string;
  readonly lines: { readonly found: number; readonly hit: number };
  readonly branches: { readonly found: number; readonly hit: number };
}

/** The records of an lcov file (SF, LF/LH, BRF/BRH), one per source file. */
export function parseLcov(text: string): FileCoverage[] {
  const files: FileCoverage[] = [];
  let current: { file: string; lf: number; lh: number; brf: number; brh: number } | undefined;
  for (const line of text.split('\n')) {
    const [key = '', value = ''] = line.trim().split(/:(.*)/s);
    if (key === 'SF') current = { file: value, lf: 0, lh: 0, brf: 0, brh: 0 };
    else if (current && key === 'LF') current.lf = Number(value);
    else if (current && key === 'LH') current.lh = Number(value);
    else if (current && key === 'BRF') current.brf = Number(value);
    else if (current && key === 'BRH') current.brh = Number(value);
    else if (current && key === 'end_of_record') {
      files.push({ file: current.file, lines: { found: current.lf, hit: current.lh }, branches: { found: current.brf, hit: current.brh } });
      current = undefined;
    }
  }
  return files;
}

const percent = (hit: number, found: number): number => (found === 0 ? 100 : (100 * hit) / found);
const format = (value: number): string => `${value.toFixed(1)} %`;

/**
 * Lines for the end of a test run: total line and branch coverage of the
 * files under `prefix` (repository-relative, e.g. `src/`), the files below
 * `threshold` % of lines, and the files of `sources` that no test loaded.
 */
export function coverageSummary(files: readonly FileCoverage[], sources: readonly string[], prefix: string, threshold: number): string[] {
  const covered = files.filter((file) => file.file.startsWith(prefix)).sort((a, b) => a.file.localeCompare(b.file));
  if (covered.length === 0) return [`no coverage of ${prefix} was recorded`];
  const sum = (pick: (file: FileCoverage) => number): number => covered.reduce((total, file) => total + pick(file), 0);
  const lines = percent(
    sum((file) => file.lines.hit),
    sum((file) => file.lines.found),
  );
  const branches = percent(
    sum((file) => file.branches.hit),
    sum((file) => file.branches.found),
  );
  const low = covered.filter((file) => percent(file.lines.hit, file.lines.found) < threshold);
  const loaded = new Set(covered.map((file) => file.file));
  const unloaded = sources.filter((source) => !loaded.has(source)).sort();
  return [
    `coverage of ${prefix}: lines ${format(lines)}, branches ${format(branches)} (${covered.length} files loaded by the tests run)`,
    ...(low.length === 0 ? [] : [`files under ${threshold} % of lines:`]),
    ...low.map(
      (file) =>
        `  ${file.file}: lines ${format(percent(file.lines.hit, file.lines.found))}, branches ${format(percent(file.branches.hit, file.branches.found))}`,
    ),
    ...(unloaded.length === 0 ? [] : [`files no test run loaded: ${unloaded.join(', ')}`]),
  ];
}
