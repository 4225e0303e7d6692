// The labels that say which controller a metric comes from, as ingress-nginx
// sets them: POD_NAMESPACE and POD_NAME (the Downward API in the Deployment)
// and --controller-class.
import { hostname } from 'node:os';

// A type, not an interface: prom-client takes label objects as string records.
export type ControllerLabels = {
  readonly controller_namespace: string;
  readonly controller_class: string;
  readonly controller_pod: string;
};

/**
 * Without POD_NAMESPACE the namespace is `default` (ingress-nginx's fallback);
 * without POD_NAME the pod is the host name, which is the pod's name in Kubernetes
 * (ingress-nginx leaves it empty).
 */
export function controllerLabels(controllerClass: string, env: NodeJS.ProcessEnv = process.env): ControllerLabels {
  return {
    controller_namespace: env.POD_NAMESPACE || 'default',
    controller_class: controllerClass,
    controller_pod: env.POD_NAME || hostname(),
  };
}
