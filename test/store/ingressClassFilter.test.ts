import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideIngressClass, isOwnIngressClass, type IngressClassSettings } from '../../src/store/ingressClassFilter.js';
import type { Ingress, IngressClass } from '../../src/kube/objects.js';

const settings: IngressClassSettings = {
  ingressClass: 'nginx',
  controllerClass: 'k8s.io/ingress-nginx',
  ingressClassByName: false,
  watchIngressWithoutClass: false,
};

function ingressClass(name: string, controller: string, isDefault = false): IngressClass {
  return {
    metadata: { name, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {} },
    spec: { controller },
  };
}

function ingress(className?: string, annotation?: string): Ingress {
  return {
    metadata: { name: 'i', namespace: 'n', annotations: annotation ? { 'kubernetes.io/ingress.class': annotation } : {} },
    spec: className ? { ingressClassName: className } : {},
  };
}

const own = new Map([['nginx', ingressClass('nginx', 'k8s.io/ingress-nginx')]]);

test('spec.ingressClassName must name one of our IngressClasses', () => {
  assert.equal(decideIngressClass(ingress('nginx'), own, settings).managed, true);
  assert.equal(decideIngressClass(ingress('traefik'), own, settings).managed, false);
});

test('spec.ingressClassName wins over a matching annotation', () => {
  assert.equal(decideIngressClass(ingress('traefik', 'nginx'), own, settings).managed, false);
});

test('the class annotation must equal --ingress-class', () => {
  assert.equal(decideIngressClass(ingress(undefined, 'nginx'), new Map(), settings).managed, true);
  assert.equal(decideIngressClass(ingress(undefined, 'other'), own, settings).managed, false);
});

test('an Ingress without class is ours only with --watch-ingress-without-class or a default class', () => {
  assert.equal(decideIngressClass(ingress(), own, settings).managed, false);
  assert.equal(decideIngressClass(ingress(), own, { ...settings, watchIngressWithoutClass: true }).managed, true);
  const withDefault = new Map([['nginx', ingressClass('nginx', 'k8s.io/ingress-nginx', true)]]);
  assert.deepEqual(decideIngressClass(ingress(), withDefault, settings), { managed: true, className: 'nginx' });
});

test('IngressClass ownership: by controller, or by name with --ingress-class-by-name', () => {
  assert.equal(isOwnIngressClass(ingressClass('x', 'k8s.io/ingress-nginx'), settings), true);
  assert.equal(isOwnIngressClass(ingressClass('nginx', 'example.com/other'), settings), false);
  assert.equal(isOwnIngressClass(ingressClass('nginx', 'example.com/other'), { ...settings, ingressClassByName: true }), true);
  assert.equal(isOwnIngressClass(ingressClass('x', 'example.com/other'), { ...settings, ingressClassByName: true }), false);
});
