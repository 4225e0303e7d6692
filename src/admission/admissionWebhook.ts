// `--validating-webhook`: the admission webhook of the running controller,
// judging Ingresses against the store and the sync loop's last sync.
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import type { Flags } from '../cli/flags.js';
import type { Logger } from '../log/logger.js';
import type { ModelInput } from '../model/buildConfiguration.js';
import type { Store, StoreSettings } from '../store/store.js';
import { parseListenAddress } from './listenAddress.js';
import { LiveAdmissionContext } from './liveAdmissionContext.js';
import { reviewIngress } from './reviewIngress.js';
import { startWebhookServer } from './webhookServer.js';

export interface AdmissionWebhookOptions {
  flags: Pick<
    Flags,
    'validatingWebhook' | 'validatingWebhookCertificate' | 'validatingWebhookKey' | 'watchNamespace' | 'disableFullTest' | 'deepInspect'
  >;
  store: Store;
  storeSettings: StoreSettings;
  /** The sync loop's last model input; the webhook starts after the first sync. */
  lastInput: () => ModelInput | undefined;
  logger: Logger;
}

export async function startAdmissionWebhook(options: AdmissionWebhookOptions): Promise<Server> {
  const { flags } = options;
  if (!flags.validatingWebhookCertificate || !flags.validatingWebhookKey) {
    throw new Error('--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key');
  }
  const context = new LiveAdmissionContext({
    store: options.store,
    storeSettings: options.storeSettings,
    watchNamespace: flags.watchNamespace,
    disableFullTest: flags.disableFullTest,
    deepInspect: flags.deepInspect,
    lastInput: options.lastInput,
  });
  return startWebhookServer({
    address: parseListenAddress(flags.validatingWebhook),
    certificate: await readFile(flags.validatingWebhookCertificate),
    key: await readFile(flags.validatingWebhookKey),
    logger: options.logger.child({ component: 'admission' }),
    review: (ingress) => {
      const current = context.current();
      if (!current) throw new Error('no sync yet');
      return reviewIngress(ingress, current);
    },
  });
}
