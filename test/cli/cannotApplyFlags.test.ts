// Flags whose ingress-nginx meaning cannot apply to Portico: `--help` says why,
// and giving one a value other than its default is named in a warning at start
// (not in the "not implemented yet" one); --maxmind-edition-ids is checked as
// ingress-nginx checks it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandLineError, parseCommandLine, type ParsedCommandLine } from '../../src/cli/commandLine.js';
import { FLAG_DEFINITIONS, type FlagDefinition } from '../../src/cli/flags.js';

function run(argv: readonly string[]): ParsedCommandLine {
  const result = parseCommandLine(argv);
  assert.equal(result.kind, 'run');
  return result;
}

const cannotApply = (name: string): string => {
  const definition: FlagDefinition | undefined = FLAG_DEFINITIONS.find((d) => d.name === name);
  assert.ok(definition?.cannotApply, name);
  return definition.cannotApply;
};

describe('flags that cannot apply', () => {
  it('are exactly the download, native histogram, chain completion, internal logger, stream port and annotation validation ones', () => {
    const names = FLAG_DEFINITIONS.filter((d: FlagDefinition) => d.cannotApply !== undefined).map((d) => d.name);
    assert.deepEqual(names.sort(), [
      'bucket-factor',
      'enable-annotation-validation',
      'enable-ssl-chain-completion',
      'internal-logger-address',
      'max-buckets',
      'maxmind-edition-ids',
      'maxmind-license-key',
      'maxmind-mirror',
      'maxmind-retries-count',
      'maxmind-retries-timeout',
      'stream-port',
    ]);
  });

  it('are named with their reason when given a value other than the default, one warning each', () => {
    const parsed = run([
      '--bucket-factor=1.1',
      '--maxmind-license-key',
      'secret',
      '--enable-ssl-chain-completion',
      '--enable-annotation-validation=false',
    ]);
    assert.deepEqual(parsed.warnings, [
      `--enable-ssl-chain-completion=true: ${cannotApply('enable-ssl-chain-completion')}`,
      `--enable-annotation-validation=false: ${cannotApply('enable-annotation-validation')}`,
      `--bucket-factor=1.1: ${cannotApply('bucket-factor')}`,
      `--maxmind-license-key=secret: ${cannotApply('maxmind-license-key')}`,
    ]);
    assert.match(parsed.warnings[0] ?? '', /AIA.*offline/);
    assert.match(parsed.warnings[1] ?? '', /values are still checked/);
  });

  it('warn about nothing when given their default value', () => {
    const parsed = run([
      '--enable-annotation-validation=true',
      '--max-buckets=100',
      '--internal-logger-address=127.0.0.1:11514',
      '--stream-port=10247',
    ]);
    assert.deepEqual(parsed.warnings, []);
    assert.equal(parsed.flags.enableAnnotationValidation, true);
  });

  it('are marked in --help with the reason instead of [not implemented yet]', () => {
    const result = parseCommandLine(['--help']);
    assert.equal(result.kind, 'exit');
    const line = result.output.split('\n').find((text) => text.trimStart().startsWith('--enable-ssl-chain-completion '));
    assert.ok(line);
    assert.ok(line.includes(`[cannot apply: ${cannotApply('enable-ssl-chain-completion')}]`), line);
    assert.ok(!line.includes('[not implemented yet]'), line);
  });
});

describe('--stream-port', () => {
  it('says why it cannot apply (no stream Lua in Debian 12) and that the port stays reserved', () => {
    assert.deepEqual(run(['--stream-port=20247']).warnings, [`--stream-port=20247: ${cannotApply('stream-port')}`]);
    assert.match(cannotApply('stream-port'), /no stream Lua module/);
    assert.match(cannotApply('stream-port'), /TCP\/UDP services entry still may not take it/);
  });
});

describe('--maxmind-edition-ids', () => {
  it('accepts the editions ingress-nginx knows', () => {
    assert.equal(
      run(['--maxmind-edition-ids=GeoIP2-City,GeoLite2-ASN,GeoIP2-Anonymous-IP']).flags.maxmindEditionIds,
      'GeoIP2-City,GeoLite2-ASN,GeoIP2-Anonymous-IP',
    );
  });

  it('refuses an unknown edition at start, as ingress-nginx', () => {
    for (const value of ['GeoLite2-City,GeoLite2-Planet', 'geolite2-city', 'GeoLite2-City,', '../../etc/passwd']) {
      assert.throws(
        () => parseCommandLine([`--maxmind-edition-ids=${value}`]),
        (error: unknown) => error instanceof CommandLineError && /unknown Maxmind GeoIP2 edition name/.test(error.message),
        value,
      );
    }
  });
});
