/** The prefix of every metric ingress-nginx defines, so dashboards and alerts keep working. */
export const METRIC_PREFIX = 'nginx_ingress_controller_';
