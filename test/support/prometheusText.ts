// Reads a Prometheus text exposition (what /metrics answers) into samples,
// so tests can look values up by name and labels.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name!] = value!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3] === '+Inf' ? Infinity : match[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include all of `labels`. */
export function samplesOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The one sample named `name` with exactly these labels (besides the controller's); throws when absent or ambiguous. */
export function valueOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number {
  const found = samplesOf(samples, name, labels);
  if (found.length !== 1) {
    throw new Error(
      `${found.length} samples of ${name} ${JSON.stringify(labels)}; ${name} has: ${JSON.stringify(samplesOf(samples, name).map((s) => s.labels))}`,
    );
  }
  return found[0]!.value;
}
