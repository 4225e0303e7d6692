// The admission context of the running controller: the store's IngressClasses
// and namespaces as they are now, and the path index of the last sync, brought
// up to date on the first review after each sync.
import type { IngressClass } from '../kube/objects.js';
import type { ModelInput } from '../model/buildConfiguration.js';
import type { Store, StoreSettings } from '../store/store.js';
import { PathOwnership } from './pathOwnership.js';
import type { AdmissionContext } from './reviewIngress.js';

export interface LiveAdmissionOptions {
  store: Store;
  storeSettings: StoreSettings;
  /** `--watch-namespace` ('' for all). */
  watchNamespace: string;
  /** `--disable-full-test`: the model runs on the submitted Ingress alone. */
  disableFullTest?: boolean;
  /** `--deep-inspect` (default true). */
  deepInspect?: boolean;
  /** The model input of the sync loop's last sync (undefined before the first one). */
  lastInput(): ModelInput | undefined;
}

export class LiveAdmissionContext {
  private readonly paths = new PathOwnership();
  private indexed: ModelInput | undefined;

  constructor(private readonly options: LiveAdmissionOptions) {}

  /** undefined until the first sync. */
  current(): AdmissionContext | undefined {
    const input = this.options.lastInput();
    if (!input) return undefined;
    if (this.indexed !== input) {
      this.paths.update(input.ingresses);
      this.indexed = input;
    }
    const { store, storeSettings, watchNamespace } = this.options;
    const ownClasses = new Map<string, IngressClass>(store.ingressClasses().map((c) => [c.metadata?.name ?? '', c]));
    return {
      annotationsPrefix: storeSettings.annotationsPrefix,
      settings: input.settings,
      classSettings: storeSettings,
      ownClasses,
      // Without a selector the source lists one namespace (--watch-namespace) or all.
      watchesNamespace: (namespace) =>
        storeSettings.namespaceSelectorActive ? store.inWatchedNamespace(namespace) : watchNamespace === '' || namespace === watchNamespace,
      disableCatchAll: storeSettings.disableCatchAll,
      paths: this.paths,
      fullTest: !this.options.disableFullTest,
      deepInspect: this.options.deepInspect ?? true,
      model: input,
    };
  }
}
