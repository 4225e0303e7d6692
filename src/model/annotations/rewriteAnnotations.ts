// rewrite-target, use-regex, ssl-redirect and force-ssl-redirect (ingress-nginx's
// "rewrite" group; its app-root and preserve-trailing-slash are in redirectAnnotations.ts).
import { parseBoolean, patternParser, type ValueParser } from '../settings/valueSyntax.js';
import type { LocationAnnotations } from '../types.js';
import type { AnnotationDefinition, AnnotationGroup } from './annotationDefinition.js';

/** `$1`..`$9` or `${1}`..`${9}`: regex captures, the only nginx variables a rewrite target may use. */
const CAPTURE = String.raw`\$[1-9]|\$\{[1-9]\}`;
/** ingress-nginx's path characters (alphanumerics and `- . _ ~ : /`). */
const PATH_CHARACTER = '[A-Za-z0-9._~:/-]';

/**
 * Anchored at both ends (an unanchored validator was CVE-2026-1580). Starting
 * with `/` or a capture keeps it a path: a target starting with `http://` or
 * `$scheme` would turn nginx's internal rewrite into a redirect.
 */
const REWRITE_TARGET = new RegExp(`^(?:/|${CAPTURE})(?:${PATH_CHARACTER}|${CAPTURE})*$`);

const parseRewriteTarget = patternParser(
  REWRITE_TARGET,
  'a URL path starting with "/" or a capture, made of letters, digits, "-._~:/" and captures $1..$9 or ${1}..${9}',
);

/**
 * ingress-nginx documents `${1}`, which nginx reads as a variable named "1"
 * (and refuses, failing the reload): it becomes `$1`. nginx reads one digit
 * after `$`, so `${1}0` is exactly `$10`, capture 1 then "0".
 */
const parseCaptureReferences: ValueParser<string> = (text) => {
  const parsed = parseRewriteTarget(text);
  return parsed.ok ? { ok: true, value: parsed.value.replace(/\$\{([1-9])\}/g, (_, digit: string) => `$${digit}`) } : parsed;
};

export const rewriteTarget: AnnotationDefinition<string> = { name: 'rewrite-target', risk: 'Medium', parse: parseCaptureReferences };

const useRegex: AnnotationDefinition<boolean> = { name: 'use-regex', risk: 'Low', parse: parseBoolean };

const sslRedirect: AnnotationDefinition<boolean> = { name: 'ssl-redirect', risk: 'Low', parse: parseBoolean };

const forceSslRedirect: AnnotationDefinition<boolean> = {
  name: 'force-ssl-redirect',
  risk: 'Medium',
  parse: parseBoolean,
};

export const rewriteAnnotations: AnnotationGroup<LocationAnnotations['rewrite']> = {
  annotations: [rewriteTarget, useRegex, sslRedirect, forceSslRedirect],
  resolve: (values, settings) => {
    const target = values.get(rewriteTarget);
    return {
      ...(target === undefined ? {} : { target }),
      useRegex: values.get(useRegex) ?? false,
      sslRedirect: values.get(sslRedirect) ?? settings.sslRedirect,
      forceSslRedirect: values.get(forceSslRedirect) ?? settings.forceSslRedirect,
    };
  },
};
