// Renders docs/compatibility.md from Portico's registries:
//   node --import tsx tools/compatibility.ts          prints it
//   node --import tsx tools/compatibility.ts --write  writes docs/compatibility.md
// test/tools/compatibility.test.ts fails while the committed file differs.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { currentSources } from './compatibility/currentSources.js';
import { COMPATIBILITY_FILE, renderCompatibility } from './compatibility/renderCompatibility.js';

const file = fileURLToPath(new URL(`../${COMPATIBILITY_FILE}`, import.meta.url));

const text = renderCompatibility(currentSources());
const [option, ...rest] = process.argv.slice(2);
if (rest.length > 0 || (option !== undefined && option !== '--write')) {
  process.stderr.write('usage: node --import tsx tools/compatibility.ts [--write]\n');
  process.exitCode = 2;
} else if (option === '--write') {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${file}\n`);
} else {
  process.stdout.write(text);
}
