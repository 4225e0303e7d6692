import type { StoreSettings } from '../store/store.js';
import type { Flags } from './flags.js';

/** The store's view of the command line. */
export function storeSettingsFromFlags(flags: Flags): StoreSettings {
  return {
    ingressClass: flags.ingressClass,
    controllerClass: flags.controllerClass,
    ingressClassByName: flags.ingressClassByName,
    watchIngressWithoutClass: flags.watchIngressWithoutClass,
    annotationsPrefix: flags.annotationsPrefix,
    disableCatchAll: flags.disableCatchAll,
    namespaceSelectorActive: flags.watchNamespaceSelector !== '',
    configMaps: [flags.configmap, flags.tcpServicesConfigmap, flags.udpServicesConfigmap].filter((key) => key !== ''),
    defaultSslCertificate: flags.defaultSslCertificate || undefined,
    defaultBackendService: flags.defaultBackendService || undefined,
  };
}
