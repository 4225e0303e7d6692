import { KubeConfig } from '@kubernetes/client-node';

export interface ClusterAccessFlags {
  /** `--kubeconfig`. */
  kubeconfig?: string;
  /** `--apiserver-host`: overrides the server of the kubeconfig (or of the in-cluster config). */
  apiserverHost?: string;
  /** `--certificate-authority`: CA file for `--apiserver-host`. */
  certificateAuthority?: string;
}

/** As ingress-nginx: a kubeconfig file when given, else the in-cluster service account. */
export function loadKubeConfig(flags: ClusterAccessFlags): KubeConfig {
  const config = new KubeConfig();
  if (flags.kubeconfig) config.loadFromFile(flags.kubeconfig);
  else config.loadFromCluster();
  if (!flags.apiserverHost) return config;
  const current = config.getCurrentCluster();
  if (!current) throw new Error('kubeconfig has no current cluster');
  const cluster = {
    ...current,
    server: flags.apiserverHost,
    ...(flags.certificateAuthority ? { caFile: flags.certificateAuthority, caData: undefined } : {}),
  };
  const overridden = new KubeConfig();
  overridden.loadFromOptions({
    clusters: config.clusters.map((c) => (c.name === current.name ? cluster : c)),
    users: config.users,
    contexts: config.contexts,
    currentContext: config.currentContext,
  });
  return overridden;
}
