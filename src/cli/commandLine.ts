// Parses Portico's command line as ingress-nginx's pflag would, so the args of
// an existing Deployment mean the same thing here. commander provides help,
// typo suggestions and per-option value parsing; the Go/pflag spellings it
// does not know (`--bool=false`, `-v=2`) are rewritten before it sees them.
import { isIP } from 'node:net';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { FLAG_DEFINITIONS, flagPropertyName, type FlagDefinition, type FlagName, type FlagValue, type Flags } from './flags.js';
import { unknownMaxmindEdition } from '../dataplane/nginx/maxmindDatabases.js';
import { PORTICO_VERSION } from './version.js';
import { goDurationMs } from '../model/settings/goDuration.js';

/** A command line that cannot be run: unknown flag, bad value, conflicting flags. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
  /** pflag exits with 2 on a bad command line. */
  readonly exitCode = 2;
}

/** The controller should start with these flags. */
export interface ParsedCommandLine {
  readonly kind: 'run';
  readonly flags: Flags;
  /** Flags given on the command line, even when given their default value. */
  readonly explicitlySet: ReadonlySet<FlagName>;
  /** For the log, e.g. flags that are accepted but not acted on yet. */
  readonly warnings: readonly string[];
  /** Non-flag arguments; pflag accepts them and ingress-nginx ignores them. */
  readonly positionalArguments: readonly string[];
}

/** `--help` or `--version`: print `output` to stdout and exit with `exitCode`. */
export interface CommandLineExit {
  readonly kind: 'exit';
  readonly exitCode: 0;
  readonly output: string;
}

export type CommandLineResult = ParsedCommandLine | CommandLineExit;

/**
 * Parses `argv` (without the node and script paths).
 * @throws CommandLineError when the command line is invalid.
 */
export function parseCommandLine(argv: readonly string[]): CommandLineResult {
  const helpOutput: string[] = [];
  const program = new Command('portico')
    .description('Ingress controller for Kubernetes, a drop-in successor to ingress-nginx.')
    .helpOption('-h, --help', 'Show this help and exit.')
    .configureHelp({ sortOptions: true })
    .configureOutput({
      writeOut: (text) => helpOutput.push(text),
      // The caller prints the error it catches; commander must not print it too.
      outputError: () => undefined,
    })
    .allowExcessArguments()
    .exitOverride();
  const options = new Map(FLAG_DEFINITIONS.map((definition) => [definition, commanderOption(definition)]));
  for (const option of options.values()) program.addOption(option);

  try {
    program.parse(toCommanderSyntax(argv), { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed') return { kind: 'exit', exitCode: 0, output: helpOutput.join('') };
    throw new CommandLineError(error.message.replace(/^error: /, ''));
  }

  const values: Record<string, FlagValue> = {};
  const explicitlySet = new Set<FlagName>();
  for (const [definition, option] of options) {
    const given = program.getOptionValueSource(option.attributeName()) === 'cli';
    if (given) explicitlySet.add(definition.name);
    values[flagPropertyName(definition.name)] = given ? (program.getOptionValue(option.attributeName()) as FlagValue) : definition.default;
  }
  // Safe: `values` has one property per table row, typed by its kind, which is how `Flags` is defined.
  const flags = values as unknown as Flags;

  if (flags.version) return { kind: 'exit', exitCode: 0, output: `portico ${PORTICO_VERSION}\n` };
  if (flags.watchNamespace !== '' && flags.watchNamespaceSelector !== '') {
    throw new CommandLineError('flags --watch-namespace and --watch-namespace-selector are mutually exclusive');
  }
  if (flags.metricsPerUndefinedHost && !flags.metricsPerHost) {
    throw new CommandLineError('--metrics-per-undefined-host=true must be passed with --metrics-per-host=true');
  }
  if (flags.monitorMaxBatchSize < 1) throw new CommandLineError('--monitor-max-batch-size must be at least 1');
  const unknownEdition = unknownMaxmindEdition(flags.maxmindEditionIds);
  if (unknownEdition !== undefined) throw new CommandLineError(`unknown Maxmind GeoIP2 edition name: '${unknownEdition}'`);

  return {
    kind: 'run',
    flags,
    explicitlySet,
    warnings: cannotApplyWarnings(flags, explicitlySet),
    positionalArguments: program.args,
  };
}

/** A flag given a value other than its default whose ingress-nginx meaning cannot apply: one warning each, naming it and why. */
function cannotApplyWarnings(flags: Flags, explicitlySet: ReadonlySet<FlagName>): string[] {
  const values = flags as unknown as Readonly<Record<string, FlagValue>>;
  return FLAG_DEFINITIONS.flatMap((definition: FlagDefinition) => {
    if (definition.cannotApply === undefined || !explicitlySet.has(definition.name as FlagName)) return [];
    const value = values[flagPropertyName(definition.name)];
    if (String(value) === String(definition.default)) return [];
    return [`--${definition.name}=${String(value)}: ${definition.cannotApply}`];
  });
}

const DEFINITIONS_BY_NAME: ReadonlyMap<string, FlagDefinition> = new Map(FLAG_DEFINITIONS.map((d) => [d.name, d]));

/**
 * Rewrites pflag spellings into ones commander reads the same way:
 * - a bare boolean `--flag` becomes `--flag=true`, so that (as in pflag) the
 *   next argument is never taken as its value;
 * - `-v=2` and `-v2` become `--v=2` (commander would read `-v=2` as "=2");
 * - an unknown `--flag=value` loses its value, so commander's "did you mean"
 *   compares the flag name alone.
 * A single-dash long flag (`-watch-namespace`) is refused here with a hint,
 * as commander suggests only for double-dash flags.
 * A non-boolean flag without `=` takes the next argument, whatever it is.
 */
function toCommanderSyntax(argv: readonly string[]): string[] {
  const rewritten: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '--') {
      rewritten.push(...argv.slice(index));
      break;
    }
    const singleDashName = /^-([^-=][^=]+)/.exec(argument)?.[1];
    if (singleDashName !== undefined && DEFINITIONS_BY_NAME.has(singleDashName)) {
      // Go's `flag` package accepts `-name`; pflag, and so ingress-nginx, does not.
      throw new CommandLineError(`unknown shorthand flag '${argument}'\n(Did you mean --${singleDashName}?)`);
    }
    const flag = splitFlag(argument);
    const definition = flag && DEFINITIONS_BY_NAME.get(flag.name);
    if (!flag || (!definition && !argument.startsWith('--'))) {
      rewritten.push(argument);
    } else if (!definition) {
      rewritten.push(`--${flag.name}`);
    } else if (flag.value !== undefined) {
      rewritten.push(`--${flag.name}=${flag.value}`);
    } else if (definition.kind === 'bool') {
      rewritten.push(`--${flag.name}=true`);
    } else {
      rewritten.push(`--${flag.name}`);
      const value = argv[index + 1];
      if (value !== undefined) {
        rewritten.push(value);
        index++;
      }
    }
  }
  return rewritten;
}

/** `--name[=value]`, or a one-letter `-n`, `-n=value`, `-nvalue`; undefined for non-flags. */
function splitFlag(argument: string): { name: string; value: string | undefined } | undefined {
  const long = /^--([^=]+)(?:=(.*))?$/s.exec(argument);
  if (long) return { name: long[1] ?? '', value: long[2] };
  const short = /^-([^-])(=?)(.*)$/s.exec(argument);
  if (short) return { name: short[1] ?? '', value: short[2] || short[3] ? short[3] : undefined };
  return undefined;
}

function commanderOption(definition: FlagDefinition): Option {
  const names = definition.name.length === 1 ? `-${definition.name}, --${definition.name}` : `--${definition.name}`;
  // Booleans always arrive as `--flag=value` (see toCommanderSyntax), so their value is optional.
  const placeholder = definition.kind === 'bool' ? '[bool]' : `<${definition.kind}>`;
  const notes = [defaultNote(definition), definition.cannotApply === undefined ? '' : ` [cannot apply: ${definition.cannotApply}]`].join(
    '',
  );
  return new Option(`${names} ${placeholder}`, `${definition.description}${notes}`).argParser(
    (text: string, previous: FlagValue | undefined) => parseFlagValue(definition, text, previous),
  );
}

/** pflag's "(default …)" help suffix, which it leaves out for zero values. */
function defaultNote(definition: FlagDefinition): string {
  const text = flagDefaultText(definition);
  return text === undefined ? '' : ` (default ${text})`;
}

/** A flag's default as pflag's help writes it, or undefined for a zero value (which pflag does not write). */
export function flagDefaultText(definition: FlagDefinition): string | undefined {
  switch (definition.kind) {
    case 'string':
      return definition.default === '' ? undefined : `"${definition.default}"`;
    case 'bool':
    case 'int':
    case 'uint32':
    case 'float':
    case 'ip':
      return definition.default ? `${definition.default}` : undefined;
    case 'duration':
      return definition.default === 0 ? undefined : formatDuration(definition.default);
    case 'stringList':
    case 'floatList':
      return definition.default.length === 0 ? undefined : `[${definition.default.join(',')}]`;
  }
}

function formatDuration(milliseconds: number): string {
  for (const [unit, size] of [
    ['h', HOUR],
    ['m', MINUTE],
    ['s', SECOND],
  ] as const) {
    if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/**
 * Parses one occurrence of a flag. As in pflag, a repeated list flag appends
 * (its first occurrence replaces the default) and a repeated scalar keeps the last.
 */
function parseFlagValue(definition: FlagDefinition, text: string, previous: FlagValue | undefined): FlagValue {
  switch (definition.kind) {
    case 'string':
      return text;
    case 'bool':
      return parseGoBool(text);
    case 'int':
      return parseGoInteger(text, { signed: true, max: Number.MAX_SAFE_INTEGER });
    case 'uint32':
      return parseGoInteger(text, { signed: false, max: 0xffff_ffff });
    case 'float':
      return parseGoFloat(text);
    case 'duration':
      return parseGoDuration(text);
    case 'ip':
      if (isIP(text) === 0) throw new InvalidArgumentError('expected an IPv4 or IPv6 address.');
      return text;
    case 'stringList':
      // pflag reads the value as one CSV record; an empty value is an empty list.
      return appendTo(previous, text === '' ? [] : text.split(','));
    case 'floatList':
      return appendTo(previous, text.split(',').map(parseGoFloat));
  }
}

function appendTo<T>(previous: FlagValue | undefined, items: readonly T[]): readonly T[] {
  return Array.isArray(previous) ? [...(previous as readonly T[]), ...items] : items;
}

// strconv.ParseBool's spellings.
const GO_TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

function parseGoBool(text: string): boolean {
  if (GO_TRUE.has(text)) return true;
  if (GO_FALSE.has(text)) return false;
  throw new InvalidArgumentError('expected true or false.');
}

// strconv.ParseInt with base 0, as pflag uses: 0x, 0o, 0b and a leading 0
// (octal) prefixes, and underscores between digits.
const GO_INTEGER = /^([+-]?)(0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/;

function parseGoInteger(text: string, range: { signed: boolean; max: number }): number {
  const match = GO_INTEGER.exec(text);
  const sign = match?.[1] ?? '';
  if (!match || (sign !== '' && !range.signed)) {
    throw new InvalidArgumentError(range.signed ? 'expected an integer.' : 'expected a non-negative integer.');
  }
  const digits = (match[2] ?? '').replaceAll('_', '');
  // BigInt reads 0x/0o/0b itself but would read a leading-zero octal as decimal.
  const magnitude = BigInt(/^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits);
  if (magnitude > BigInt(range.max)) throw new InvalidArgumentError(`out of range (maximum ${range.max}).`);
  return Number(sign === '-' ? -magnitude : magnitude);
}

const GO_DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseGoFloat(text: string): number {
  const value = Number(text);
  if (!GO_DECIMAL_FLOAT.test(text) || !Number.isFinite(value)) throw new InvalidArgumentError('expected a number.');
  return value;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go duration syntax (`30s`, `1h30m`, `250ms`) to milliseconds. */
function parseGoDuration(text: string): number {
  const milliseconds = goDurationMs(text);
  if (milliseconds === undefined) throw new InvalidArgumentError('expected a duration such as 30s, 1m30s or 250ms.');
  return milliseconds;
}
