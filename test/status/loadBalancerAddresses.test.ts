import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, Pod, Service } from '../../src/kube/objects.js';
import {
  addressesFromList,
  addressesFromNodes,
  addressesFromService,
  nodeAddress,
  sameAddresses,
  standardized,
} from '../../src/status/loadBalancerAddresses.js';
import { replicaSelector } from '../../src/status/controllerReplicas.js';

function service(spec: NonNullable<Service['spec']>, lb: { ip?: string; hostname?: string }[] = []): Service {
  return { metadata: { name: 'lb', namespace: 'ns' }, spec, status: { loadBalancer: { ingress: lb } } };
}

function node(name: string, addresses: Record<string, string>): Node {
  return { metadata: { name }, status: { addresses: Object.entries(addresses).map(([type, address]) => ({ type, address })) } };
}

function pod(nodeName: string, { phase = 'Running', ready = true } = {}): Pod {
  return {
    metadata: { name: `p-${nodeName}` },
    spec: { nodeName, containers: [] },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('--publish-status-address', () => {
  it('splits on commas (with or without spaces) and tells IPs from hostnames', () => {
    assert.deepEqual(addressesFromList('10.0.0.1, lb.example.com,2001:db8::1'), [
      { ip: '10.0.0.1' },
      { hostname: 'lb.example.com' },
      { ip: '2001:db8::1' },
    ]);
  });

  it('drops empty items', () => {
    assert.deepEqual(addressesFromList('10.0.0.1,,'), [{ ip: '10.0.0.1' }]);
  });
});

describe('--publish-service by type', () => {
  it('LoadBalancer: the ingress points (IP and hostname kept as written) plus external IPs not already listed', () => {
    const svc = service({ type: 'LoadBalancer', clusterIP: '10.0.0.9', externalIPs: ['192.0.2.7', '192.0.2.1'] }, [
      { ip: '192.0.2.1' },
      { hostname: 'elb.example.com' },
      { ip: '192.0.2.2', hostname: 'both.example.com' },
    ]);
    assert.deepEqual(addressesFromService(svc), [
      { ip: '192.0.2.1' },
      { hostname: 'elb.example.com' },
      { ip: '192.0.2.2', hostname: 'both.example.com' },
      { ip: '192.0.2.7' },
    ]);
  });

  it('LoadBalancer without a provisioned balancer publishes nothing yet', () => {
    assert.deepEqual(addressesFromService(service({ type: 'LoadBalancer', clusterIP: '10.0.0.9' })), []);
  });

  it('ClusterIP: the cluster IP (a headless Service has none)', () => {
    assert.deepEqual(addressesFromService(service({ type: 'ClusterIP', clusterIP: '10.0.0.9' })), [{ ip: '10.0.0.9' }]);
    assert.deepEqual(addressesFromService(service({ clusterIP: '10.0.0.9' })), [{ ip: '10.0.0.9' }]);
    assert.deepEqual(addressesFromService(service({ type: 'ClusterIP', clusterIP: 'None' })), []);
  });

  it('NodePort: the external IPs, else the cluster IP', () => {
    assert.deepEqual(addressesFromService(service({ type: 'NodePort', clusterIP: '10.0.0.9', externalIPs: ['192.0.2.3'] })), [
      { ip: '192.0.2.3' },
    ]);
    assert.deepEqual(addressesFromService(service({ type: 'NodePort', clusterIP: '10.0.0.9' })), [{ ip: '10.0.0.9' }]);
  });

  it('ExternalName: its hostname', () => {
    assert.deepEqual(addressesFromService(service({ type: 'ExternalName', externalName: 'ingress.example.com' })), [
      { hostname: 'ingress.example.com' },
    ]);
  });

  it('an unknown type is not publishable', () => {
    assert.equal(addressesFromService(service({ type: 'Mystery' })), undefined);
  });
});

describe('node addresses (no publish flag)', () => {
  const nodes = new Map([
    ['a', node('a', { InternalIP: '10.1.0.1', ExternalIP: '203.0.113.1' })],
    ['b', node('b', { InternalIP: '10.1.0.2' })],
    ['c', node('c', { Hostname: 'c' })],
  ]);

  it('ExternalIP first, InternalIP when there is none; --report-node-internal-ip-address always InternalIP', () => {
    assert.equal(nodeAddress(nodes.get('a') as Node, false), '203.0.113.1');
    assert.equal(nodeAddress(nodes.get('b') as Node, false), '10.1.0.2');
    assert.equal(nodeAddress(nodes.get('a') as Node, true), '10.1.0.1');
    assert.equal(nodeAddress(nodes.get('c') as Node, false), '');
  });

  it('one address per node of a Running and Ready pod', () => {
    const pods = [pod('a'), pod('a'), pod('b'), pod('b', { phase: 'Pending' }), pod('c'), pod('missing')];
    assert.deepEqual(addressesFromNodes(pods, nodes, false), [{ ip: '203.0.113.1' }, { ip: '10.1.0.2' }]);
    assert.deepEqual(addressesFromNodes([pod('a', { ready: false }), pod('b', { phase: 'Failed' })], nodes, false), []);
    assert.deepEqual(addressesFromNodes([pod('a')], nodes, true), [{ ip: '10.1.0.1' }]);
  });
});

describe('comparison', () => {
  it('sorts by hostname, then IP, and drops duplicates and empty entries', () => {
    assert.deepEqual(
      standardized([{ ip: '10.0.0.2' }, { hostname: 'b.example' }, { ip: '10.0.0.1' }, { hostname: 'a.example' }, { ip: '10.0.0.2' }, {}]),
      [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { hostname: 'a.example' }, { hostname: 'b.example' }],
    );
  });

  it('ignores order, and fields other than ip and hostname', () => {
    assert.ok(sameAddresses([{ ip: '10.0.0.2' }, { ip: '10.0.0.1' }], [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]));
    assert.ok(sameAddresses([{ ip: '10.0.0.1', ...{ ports: [] } }], [{ ip: '10.0.0.1' }]));
    assert.ok(!sameAddresses([{ ip: '10.0.0.1' }], [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]));
    assert.ok(!sameAddresses([{ ip: '10.0.0.1' }], [{ hostname: '10.0.0.1' }]));
    assert.ok(sameAddresses([], []));
  });
});

describe('replica selector', () => {
  it("is the pod's labels without the per-revision ones", () => {
    assert.equal(
      replicaSelector({
        'pod-template-hash': 'abc',
        app: 'portico',
        'controller-revision-hash': 'x',
        'pod-template-generation': '2',
        tier: 'edge',
      }),
      'app=portico,tier=edge',
    );
  });
});
