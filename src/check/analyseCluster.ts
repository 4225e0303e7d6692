// The analysis of `portico check`: one pass of the controller's own pipeline
// (ConfigMap → settings, Ingress acceptance, the model) over what was read, and
// what of it would behave differently from ingress-nginx. Nothing is parsed here:
// every verdict is the controller's.
import type { Flags } from '../cli/flags.js';
import { endpointPolicyFromFlags } from '../cli/endpointPolicyFromFlags.js';
import { IngressAcceptance } from '../controller/ingressAcceptance.js';
import { objectKey, type Ingress } from '../kube/objects.js';
import { defaultLocationAnnotations } from '../model/annotations/parseIngressAnnotations.js';
import { buildConfiguration } from '../model/buildConfiguration.js';
import type { SettingsEnvironment } from '../model/settings/settingSpec.js';
import type { Configuration } from '../model/types.js';
import type { Store } from '../store/store.js';
import { CHECK_REPORT_VERSION, type CheckReport, type IngressFinding, type ServedPath } from './checkReport.js';
import { readConfigMap } from './configMapFindings.js';
import { deploymentFlagFindings, type Deployment } from './deploymentFlags.js';

export interface CheckInput {
  /** Filled from the cluster or the manifests, with the controller's class and namespace settings. */
  store: Store;
  /** The controller's flags the check was given (class, ConfigMap, annotations prefix, defaults). */
  flags: Flags;
  environment: SettingsEnvironment;
  /** `--from-deployment`: the ingress-nginx Deployment whose flags are compared. */
  deployment?: Deployment;
}

export function analyseCluster(input: CheckInput): CheckReport {
  const { store, flags } = input;
  const configMapName = flags.configmap || undefined;
  const { settings, finding: configMap } = readConfigMap(
    configMapName,
    configMapName === undefined ? undefined : store.configMap(configMapName),
    input.environment,
  );
  const ingresses = store.ingresses().sort(byNamespaceAndName);
  const acceptance = new IngressAcceptance(flags.annotationsPrefix).update(ingresses, settings);
  const model = buildConfiguration({
    ingresses: acceptance.accepted,
    lookup: store,
    settings,
    defaultAnnotations: defaultLocationAnnotations(settings),
    defaultBackendService: flags.defaultBackendService || undefined,
    defaultSslCertificate: flags.defaultSslCertificate || undefined,
    endpoints: endpointPolicyFromFlags(flags, undefined),
    sslPassthrough: flags.enableSslPassthrough,
  });

  const refused = new Map(acceptance.refused.map((refusal) => [refusal.ingress, refusal.errors]));
  const ignored = new Map(acceptance.warnings.map((warning) => [warning.ingress, warning.messages]));
  const findings = ingresses.map((ingress): IngressFinding => {
    const key = objectKey(ingress);
    const errors = refused.get(ingress) ?? [];
    const problems = model.problems
      .filter((problem) => `${problem.ingress.namespace}/${problem.ingress.name}` === key)
      .map(({ severity, reason, message }) => ({ severity, reason, message }));
    const finding = {
      namespace: ingress.metadata?.namespace ?? '',
      name: ingress.metadata?.name ?? '',
      status: errors.length > 0 ? ('refused' as const) : ('served' as const),
      serves: errors.length > 0 ? [] : servedPaths(model.configuration, ingress),
      refused: errors,
      ignored: ignored.get(ingress) ?? [],
      problems,
    };
    const changes =
      finding.status === 'refused' || finding.ignored.length > 0 || problems.some((problem) => problem.severity === 'warning');
    return { ...finding, changes };
  });

  const deployment = input.deployment === undefined ? undefined : deploymentFlagFindings(input.deployment);
  const changes =
    findings.some((finding) => finding.changes) ||
    configMap.refusedValues.length > 0 ||
    configMap.ignoredKeys.length > 0 ||
    (deployment?.flags.length ?? 0) > 0;
  return {
    version: CHECK_REPORT_VERSION,
    changes,
    ingresses: findings,
    configMap,
    ...(deployment === undefined ? {} : { deployment }),
    warnings: model.warnings,
  };
}

/** The routes the model gave this Ingress, in the configuration's order (servers by host, locations as nginx sees them). */
function servedPaths(configuration: Configuration, ingress: Ingress): ServedPath[] {
  const { namespace = '', name = '' } = ingress.metadata ?? {};
  return configuration.servers.flatMap((server) =>
    server.locations
      .filter((location) => location.ingress?.namespace === namespace && location.ingress.name === name)
      .map((location) => ({ host: server.hostname, path: location.path, match: location.match })),
  );
}

function byNamespaceAndName(a: Ingress, b: Ingress): number {
  const key = (ingress: Ingress): [string, string] => [ingress.metadata?.namespace ?? '', ingress.metadata?.name ?? ''];
  const [[namespaceA, nameA], [namespaceB, nameB]] = [key(a), key(b)];
  if (namespaceA !== namespaceB) return namespaceA < namespaceB ? -1 : 1;
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}
