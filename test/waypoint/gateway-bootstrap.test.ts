// The waypoint's Envoy bootstrap and the SDS files of its Secret parse strictly as the pinned Envoy API
// (../shared/protos-2026, xdsProblems), with node.cluster W.N, ADS over the static mTLS cluster to the controller,
// the controller's identity checked, the credential read from the mounted Secret through SDS from files
// (watched_directory), and the admin on localhost only. The Deployment passes the bootstrap inline.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sdsFiles, waypointBootstrap, XDS_MOUNT } from '../../src/waypoint/bootstrap.ts';
import { gatewayInfoOf } from '../../src/waypoint/gateway-objects.ts';
import { deploymentOf, secretOf } from '../../src/waypoint/owned-objects.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { gateway, PROXY_LISTENER } from './gateway-support.ts';

const BOOTSTRAP = 'type.googleapis.com/envoy.config.bootstrap.v3.Bootstrap';
const OPTIONS = {
  namespace: 'shop',
  name: 'w',
  xdsHost: 'aeraki.istio-system.svc',
  xdsPort: 15010,
  serverIdentity: 'spiffe://cluster.local/ns/istio-system/sa/aeraki',
};

describe('waypoint bootstrap', () => {
  it('parses strictly as a Bootstrap of the pinned Envoy API', () => {
    assert.deepEqual(xdsProblems(BOOTSTRAP, waypointBootstrap(OPTIONS)), []);
    assert.deepEqual(xdsProblems(BOOTSTRAP, waypointBootstrap({ ...OPTIONS, xdsHost: '10.0.0.7' })), []);
    assert.notDeepEqual(
      xdsProblems(BOOTSTRAP, { ...waypointBootstrap(OPTIONS), nod: {} }),
      [],
      'the check is strict',
    );
  });

  it('names the Gateway, speaks ADS over mTLS to the controller and checks its identity', () => {
    const b = waypointBootstrap(OPTIONS) as any;
    assert.deepEqual(b.node, { cluster: 'w.shop' });
    assert.equal(b.dynamic_resources.ads_config.api_type, 'GRPC');
    assert.equal(b.dynamic_resources.ads_config.transport_api_version, 'V3');
    assert.deepEqual(b.dynamic_resources.lds_config, { ads: {}, resource_api_version: 'V3' });
    assert.deepEqual(b.dynamic_resources.cds_config, { ads: {}, resource_api_version: 'V3' });
    const [cluster] = b.static_resources.clusters;
    assert.equal(cluster.name, b.dynamic_resources.ads_config.grpc_services[0].envoy_grpc.cluster_name);
    assert.equal(cluster.type, 'STRICT_DNS');
    const tls = cluster.transport_socket.typed_config;
    assert.equal(tls.sni, 'aeraki.istio-system.svc');
    assert.deepEqual(tls.common_tls_context.combined_validation_context.default_validation_context, {
      match_typed_subject_alt_names: [
        { san_type: 'URI', matcher: { exact: 'spiffe://cluster.local/ns/istio-system/sa/aeraki' } },
      ],
    });
    const sds = tls.common_tls_context.tls_certificate_sds_secret_configs[0].sds_config.path_config_source;
    assert.deepEqual(sds.watched_directory, { path: XDS_MOUNT });
    assert.deepEqual(b.admin.address.socket_address.address, '127.0.0.1');
    const dns = waypointBootstrap({ ...OPTIONS, serverIdentity: undefined }) as any;
    const v = dns.static_resources.clusters[0].transport_socket.typed_config.common_tls_context;
    assert.deepEqual(v.combined_validation_context.default_validation_context.match_typed_subject_alt_names, [
      { san_type: 'DNS', matcher: { exact: 'aeraki.istio-system.svc' } },
    ]);
  });

  it('the SDS files read the mounted tls.crt, tls.key and ca.crt and parse as discovery responses', () => {
    for (const text of Object.values(sdsFiles())) {
      const json = JSON.parse(text) as unknown;
      assert.deepEqual(
        xdsProblems('type.googleapis.com/envoy.service.discovery.v3.DiscoveryResponse', json),
        [],
      );
    }
    const all = Object.values(sdsFiles()).join('\n');
    for (const f of ['tls.crt', 'tls.key', 'ca.crt']) assert.ok(all.includes(`${XDS_MOUNT}/${f}`), f);
  });

  it('the Deployment passes the bootstrap inline and the pod name as the node id; the Secret holds the SDS files', () => {
    const g = gatewayInfoOf({
      ...gateway('w', [PROXY_LISTENER]),
      metadata: { namespace: 'shop', name: 'w', uid: 'u1' },
    });
    const d = deploymentOf(g, { ...OPTIONS, image: 'docker.io/envoyproxy/envoy:v1.38.4' }) as any;
    const c = d.spec.template.spec.containers[0];
    assert.equal(c.args[0], '--config-yaml');
    assert.deepEqual(JSON.parse(c.args[1]), waypointBootstrap(OPTIONS));
    assert.deepEqual(c.args.slice(2), ['--service-node', '$(POD_NAME)']);
    assert.deepEqual(c.env, [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }]);
    assert.deepEqual(c.readinessProbe.tcpSocket, { port: 15088 });
    const s = secretOf(g, { cert: 'C', key: 'K', serverRoot: 'R' }) as any;
    assert.deepEqual(Object.keys(s.data).sort(), [
      'ca.crt',
      'sds-identity.json',
      'sds-root.json',
      'tls.crt',
      'tls.key',
    ]);
  });
});
