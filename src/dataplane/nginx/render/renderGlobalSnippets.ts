// The ConfigMap's snippets (globalSnippetSettings.ts; the model keeps them only
// while allow-snippet-annotations is "true"), where ingress-nginx writes them:
// main-snippet in the main context before events, http-snippet in the http
// block, server-snippet at the end of every host's server (after the host's
// own server-snippet and locations), location-snippet after each location's
// configuration-snippet. Their lines carry the settings' origin: a snippet
// nginx refuses sends the ConfigMap back to the settings nginx last accepted
// (the Ingress's fallback in syncLoop.ts), with a Warning Event on it.
import type { GlobalSettings } from '../../../model/settings/globalSettings.js';
import type { ConfigBuilder } from './configBuilder.js';
import { SETTINGS_ORIGIN } from './configOrigins.js';

export function renderMainSnippet(main: ConfigBuilder, settings: GlobalSettings): void {
  renderSnippet(main, settings.mainSnippet);
}

export function renderHttpSnippet(http: ConfigBuilder, settings: GlobalSettings): void {
  renderSnippet(http, settings.httpSnippet);
}

export function renderGlobalServerSnippet(server: ConfigBuilder, settings: GlobalSettings): void {
  renderSnippet(server, settings.serverSnippet);
}

export function renderLocationSnippet(location: ConfigBuilder, settings: GlobalSettings): void {
  renderSnippet(location, settings.locationSnippet);
}

function renderSnippet(block: ConfigBuilder, snippet: string | undefined): void {
  if (snippet !== undefined) block.from(SETTINGS_ORIGIN, () => block.verbatim(snippet));
}
