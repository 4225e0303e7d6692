// `portico check`'s command line: its own two options, then the controller's
// flags exactly as `portico` parses them (cli/commandLine.ts), so the class,
// namespace, ConfigMap and source flags mean here what they mean to the controller.
import { CommandLineError, parseCommandLine } from '../cli/commandLine.js';
import type { Flags } from '../cli/flags.js';

export type CheckOutputFormat = 'table' | 'json';

export type CheckCommandLine =
  | { kind: 'check'; flags: Flags; fromDeployment: string | undefined; output: CheckOutputFormat }
  | { kind: 'exit'; exitCode: 0; output: string };

export const CHECK_USAGE = `Usage: portico check [--from-deployment NAMESPACE/NAME] [-o table|json] [controller flags]

Reads the cluster (--kubeconfig, GET and LIST only) or a folder of manifests
(--manifests DIR) as the controller would with the same flags (--configmap,
--ingress-class, --controller-class, --watch-namespace, ...) and says what would
behave differently from ingress-nginx: Ingresses refused or served with
differences, ConfigMap keys and values ignored or refused, and, with
--from-deployment, the ingress-nginx Deployment's flags Portico would not honour.

  --from-deployment NAMESPACE/NAME  the ingress-nginx controller Deployment whose args are checked
  -o, --output table|json           a table for people (the default) or JSON for scripts (docs/portico-check.md)

Exit code: 0 when nothing would change, 1 when something would, 2 on an error.
`;

const OUTPUT_FORMATS: readonly CheckOutputFormat[] = ['table', 'json'];

/** @throws CommandLineError when the command line is invalid (exit code 2). */
export function parseCheckCommandLine(argv: readonly string[]): CheckCommandLine {
  let fromDeployment: string | undefined;
  let output: CheckOutputFormat = 'table';
  const controllerArgs: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '-h' || argument === '--help') return { kind: 'exit', exitCode: 0, output: CHECK_USAGE };
    const option = /^(--from-deployment|-o|--output)(?:=(.*))?$/s.exec(argument);
    if (!option) {
      controllerArgs.push(argument);
      continue;
    }
    const value = option[2] ?? argv[++index];
    if (value === undefined || value === '') throw new CommandLineError(`${option[1]} needs a value`);
    if (option[1] === '--from-deployment') {
      fromDeployment = value;
    } else if (isOutputFormat(value)) {
      output = value;
    } else {
      throw new CommandLineError(`${option[1]} must be one of ${OUTPUT_FORMATS.join(', ')}, not ${JSON.stringify(value)}`);
    }
  }
  const parsed = parseCommandLine(controllerArgs);
  if (parsed.kind === 'exit') return parsed;
  return { kind: 'check', flags: parsed.flags, fromDeployment, output };
}

function isOutputFormat(value: string): value is CheckOutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}
