import { readFileSync } from 'node:fs';

/** The version from package.json, read once at start (works from src/ and dist/). */
export const PORTICO_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
