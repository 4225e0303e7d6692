// The ingress-nginx controller's command line, read from its Deployment, and the
// flags of it Portico would not honour. Each flag is looked up in Portico's flag
// table (cli/flags.ts) and its value parsed by the controller's own command-line
// parser, so the check says what `portico` itself would do with the same args.
import type { V1Deployment } from '@kubernetes/client-node';
import { CommandLineError, parseCommandLine } from '../cli/commandLine.js';
import { FLAG_DEFINITIONS, type FlagDefinition } from '../cli/flags.js';
import { objectKey, type Wire } from '../kube/objects.js';
import type { DeploymentFinding, FlagFinding } from './checkReport.js';

export type Deployment = Wire<V1Deployment>;

/** ingress-nginx's Helm chart and static manifests name the controller's container so. */
const CONTROLLER_CONTAINER = 'controller';

const DEFINITIONS_BY_NAME: ReadonlyMap<string, FlagDefinition> = new Map(FLAG_DEFINITIONS.map((d) => [d.name, d]));

/** The flags of the Deployment's controller container (named `controller`, else its first) that Portico would not honour. */
export function deploymentFlagFindings(deployment: Deployment): DeploymentFinding {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  const container = containers.find((candidate) => candidate.name === CONTROLLER_CONTAINER) ?? containers[0];
  const argv = [...(container?.command ?? []), ...(container?.args ?? [])];
  return { name: objectKey(deployment), container: container?.name ?? '', flags: flagFindings(argv) };
}

/** One finding per flag Portico would ignore, cannot honour, not know, or not parse; arguments that are not flags (the binary) are skipped. */
export function flagFindings(argv: readonly string[]): FlagFinding[] {
  const findings: FlagFinding[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    const flag = /^--?([^-=][^=]*)(=.*)?$/s.exec(argument);
    if (!flag) continue;
    const definition = DEFINITIONS_BY_NAME.get(flag[1] ?? '');
    if (definition === undefined) {
      findings.push({ argument, kind: 'unknown', reason: 'Portico has no such flag: it would not start with it' });
      continue;
    }
    // pflag: a non-boolean flag without `=value` takes the next argument as its value.
    const words = flag[2] === undefined && definition.kind !== 'bool' ? argv.slice(index, index + 2) : [argument];
    index += words.length - 1;
    const written = words.join(' ');
    const parsed = parseFlag(words);
    if ('problem' in parsed)
      findings.push({ argument: written, kind: 'invalid', reason: `${parsed.problem}: Portico would not start with it` });
    else if (definition.cannotApply !== undefined) {
      // At its default value (no warning at start) such a flag asks for nothing Portico does not do.
      if (parsed.warnings.length > 0)
        findings.push({ argument: written, kind: 'cannot-apply', reason: `${definition.cannotApply}; Portico says so at start` });
    }
  }
  return findings;
}

/** What the controller's parser says of this one flag: why it refuses it, or the warnings Portico would log at start. */
function parseFlag(words: readonly string[]): { problem: string } | { warnings: readonly string[] } {
  try {
    const parsed = parseCommandLine(words);
    return { warnings: parsed.kind === 'run' ? parsed.warnings : [] };
  } catch (error) {
    if (error instanceof CommandLineError) return { problem: error.message };
    throw error;
  }
}
