// --enable-topology-aware-routing in the model: which EndpointSlice endpoints a
// Service port gives when the controller's zone is known, as ingress-nginx's
// getEndpointsFromSlices and getIngressPodZone decide.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EndpointSlice, Service } from '../../src/kube/objects.js';
import { endpointsForService } from '../../src/model/backends.js';
import { hintZoneFor } from '../../src/model/topologyHints.js';

type Hinted = [address: string, zones: string[] | undefined];

function svc(annotations: Record<string, string> = {}, trafficDistribution?: string): Service {
  return { metadata: { name: 'web', namespace: 'app', annotations }, spec: { ports: [{ port: 80 }], trafficDistribution } };
}

function slice(name: string, endpoints: Hinted[]): EndpointSlice {
  return {
    metadata: { name, namespace: 'app', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ port: 8080 }],
    endpoints: endpoints.map(([address, zones]) => ({
      addresses: [address],
      conditions: { ready: true },
      ...(zones === undefined ? {} : { hints: { forZones: zones.map((zone) => ({ name: zone })) } }),
    })),
  };
}

function addresses(service: Service, slices: EndpointSlice[], zone: string | undefined): string[] {
  const lookup = { service: () => service, endpointSlicesOfService: () => slices };
  return endpointsForService({ namespace: 'app', name: 'web', port: 80 }, lookup, [], zone).map((endpoint) => endpoint.address);
}

const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };
const hinted = slice('hinted', [
  ['10.0.0.1', ['zone-a']],
  ['10.0.0.2', ['zone-b']],
  ['10.0.0.3', ['zone-a', 'zone-b']],
]);

describe('which zone counts for a Service', () => {
  it('the controller zone, when the Service says topology-mode auto (any case) or trafficDistribution PreferClose', () => {
    assert.equal(hintZoneFor(svc(AUTO), 'zone-a'), 'zone-a');
    assert.equal(hintZoneFor(svc({ 'service.kubernetes.io/topology-mode': 'auto' }), 'zone-a'), 'zone-a');
    assert.equal(hintZoneFor(svc({}, 'PreferClose'), 'zone-a'), 'zone-a');
  });

  it('none otherwise, or when the controller zone is unknown', () => {
    assert.equal(hintZoneFor(svc(), 'zone-a'), undefined);
    assert.equal(hintZoneFor(svc({ 'service.kubernetes.io/topology-mode': 'Disabled' }), 'zone-a'), undefined);
    assert.equal(hintZoneFor(svc(AUTO), undefined), undefined);
  });
});

describe('endpoints of a Service with topology-aware routing', () => {
  it('are those hinted for the controller zone', () => {
    assert.deepEqual(addresses(svc(AUTO), [hinted], 'zone-a'), ['10.0.0.1', '10.0.0.3']);
    assert.deepEqual(addresses(svc(AUTO), [hinted], 'zone-b'), ['10.0.0.2', '10.0.0.3']);
  });

  it('are all of them when the flag is off (no zone), or the Service does not ask', () => {
    assert.deepEqual(addresses(svc(AUTO), [hinted], undefined), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    assert.deepEqual(addresses(svc(), [hinted], 'zone-a'), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });

  it('are all of a slice in which one endpoint has no hints, decided per slice', () => {
    const partly = slice('partly', [
      ['10.0.1.1', ['zone-b']],
      ['10.0.1.2', undefined],
    ]);
    assert.deepEqual(addresses(svc(AUTO), [hinted, partly], 'zone-a'), ['10.0.0.1', '10.0.0.3', '10.0.1.1', '10.0.1.2']);
  });

  it('with topology-mode auto, a fully hinted slice with nothing for the zone gives nothing', () => {
    assert.deepEqual(addresses(svc(AUTO), [hinted], 'zone-c'), []);
  });

  it('with PreferClose, a slice with nothing for the zone gives all its endpoints', () => {
    assert.deepEqual(addresses(svc({}, 'PreferClose'), [hinted], 'zone-c'), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    assert.deepEqual(addresses(svc({}, 'PreferClose'), [hinted], 'zone-b'), ['10.0.0.2', '10.0.0.3']);
  });
});
