// Figures printed as Markdown tables, so a run's output pastes straight into
// bench/README.md.

export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  // First column (labels) left-aligned, figures right-aligned.
  const pad = (cell: string, column: number): string => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!));
  const line = (cells: readonly string[]): string => `| ${headers.map((_, column) => pad(cells[column] ?? '', column)).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  process.stdout.write([line(headers), rule, ...rows.map(line)].join('\n') + '\n');
}

/** A figure with a fixed number of decimals and thousands separators. */
export function figure(value: number, decimals = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}
