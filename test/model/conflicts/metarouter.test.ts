// Conflicts between MetaRouters (and between ApplicationProtocols) need the whole config: they are warnings on
// both objects, from generateAll and from the route builder alike (render with and without --routes); a
// MetaRouter that breaks a §7.3 rule is rejected and its ServiceEntry gets the default route.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { render } from '../../../src/app/render.ts';
import { metaProtocolConflicts } from '../../../src/model/conflicts/metarouter.ts';
import type { ApplicationProtocol, ApplicationProtocolSpec } from '../../../src/model/objects.ts';
import { issueLine } from '../../../src/model/result.ts';
import { meta, metaRouter, serviceEntry, storeOf } from '../../support/builders.ts';

/** ApplicationProtocol `name` for `protocol`, created on day `day` of 2026-01. */
function applicationProtocol(
  name: string,
  protocol: string,
  codec: string,
  day: number,
): ApplicationProtocol {
  const creationTimestamp = `2026-01-${String(day).padStart(2, '0')}T00:00:00Z`;
  const spec: ApplicationProtocolSpec = { protocol, codec };
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'ApplicationProtocol',
    metadata: meta('', name, { creationTimestamp }),
    spec,
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-conflicts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HOST = 'demo.meta.svc.cluster.local';

const SERVICE = `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: demo, namespace: meta}
spec:
  hosts: [${HOST}]
  addresses: [240.240.0.1]
  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
  workloadSelector: {labels: {app: demo}}
`;

function router(name: string, created: string, host = HOST, extra = ''): string {
  return `
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: ${name}, namespace: meta, creationTimestamp: "${created}"}
spec:
  hosts: [${host}]
  routes:
  - name: ${name}
    route: [{destination: {host: ${HOST}, subset: v1}}]
${extra}`;
}

function renderBoth(yaml: string): { envoyFilters: string[]; routes: string[]; routesDoc: unknown } {
  const file = path.join(dir, `case-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const base = {
    files: [file],
    output: 'json' as const,
    rootNamespace: 'istio-system',
    namespaceScope: false,
  };
  const filters = render({ ...base, routes: false });
  const routes = render({ ...base, routes: true });
  return {
    envoyFilters: filters.issues.map(issueLine),
    routes: routes.issues.map(issueLine),
    routesDoc: JSON.parse(routes.stdout),
  };
}

describe('MetaRouter conflicts (warnings on both objects)', () => {
  it('two MetaRouters for one host: each names the other; the oldest is used', () => {
    const out = renderBoth(
      [SERVICE, router('older', '2026-01-01T00:00:00Z'), router('newer', '2026-02-01T00:00:00Z')].join(
        '---\n',
      ),
    );
    const expected = [
      `warning: MetaRouter meta/newer: spec.hosts[0]: MetaRouter meta/older is also for host "${HOST}" and is used (the oldest wins): this one is ignored`,
      `warning: MetaRouter meta/older: spec.hosts[0]: MetaRouter meta/newer is also for host "${HOST}": this one is used (the oldest wins), that one is ignored`,
    ];
    assert.deepEqual(out.envoyFilters, expected);
    assert.deepEqual(out.routes, expected);
  });

  it('a MetaRouter for a host no ServiceEntry has: a warning on it', () => {
    const out = renderBoth(
      [SERVICE, router('stray', '2026-01-01T00:00:00Z', 'nowhere.meta.svc.cluster.local')].join('---\n'),
    );
    const expected = [
      'warning: MetaRouter meta/stray: spec.hosts[0]: no ServiceEntry has "nowhere.meta.svc.cluster.local" as its first host: this MetaRouter configures no sidecar and no MetaProtocol routes are served for it',
    ];
    assert.deepEqual(out.envoyFilters, expected);
    assert.deepEqual(out.routes, expected);
  });

  it('an empty attribute match is reported as a warning by render, exit stays 0', () => {
    const extra = `  - match: {attributes: {tenant: {}}}
    route: [{destination: {host: ${HOST}, subset: v2}}]`;
    const out = renderBoth([SERVICE, router('mr', '2026-01-01T00:00:00Z', HOST, extra)].join('---\n'));
    assert.ok(
      out.envoyFilters.includes(
        'warning: MetaRouter meta/mr: spec.routes[1].match.attributes.tenant: none of exact, prefix or regex is set: this attribute adds no condition and is ignored',
      ),
      out.envoyFilters.join('\n'),
    );
    assert.ok(out.envoyFilters.every((l) => l.startsWith('warning:')));
  });

  it('an invalid MetaRouter is rejected: an error naming it, and its host gets the default route', () => {
    const extra = `  - match: {attributes: {method: {regex: "([a-"}}}
    route: [{destination: {host: ${HOST}, subset: v2}}]`;
    const out = renderBoth([SERVICE, router('bad', '2026-01-01T00:00:00Z', HOST, extra)].join('---\n'));
    const errors = out.routes.filter((l) => l.startsWith('error:'));
    assert.equal(errors.length, 1, out.routes.join('\n'));
    assert.match(
      errors[0] ?? '',
      /^error: MetaRouter meta\/bad: spec\.routes\[1\]\.match\.attributes\.method\.regex: not a valid RE2 regex/,
    );
    // No valid version known: it holds nothing (xds-rds/routes.ts), and the host gets the route its ServiceEntry
    // alone gives.
    const doc = out.routesDoc as {
      items: { virtualHosts: { routes: { route: { cluster: string } }[] }[] }[];
    };
    assert.deepEqual(
      doc.items.map((i) => i.virtualHosts[0]?.routes.map((r) => r.route.cluster)),
      [[`outbound|20880||${HOST}`]],
    );
  });
});

describe('ApplicationProtocol conflicts', () => {
  const se = serviceEntry('meta', 'demo', { hosts: [HOST] });
  const mr = metaRouter('meta', 'mr', { hosts: [HOST], routes: [] });

  it('two ApplicationProtocols for one protocol with different codecs: a warning on each', () => {
    const older = applicationProtocol('trpc-a', 'trpc', 'codec.a', 1);
    const newer = applicationProtocol('trpc-b', 'trpc', 'codec.b', 2);
    const same = applicationProtocol('trpc-c', 'trpc', 'codec.a', 3);
    const lines = metaProtocolConflicts(storeOf([se, mr, older, newer, same])).map(issueLine);
    assert.deepEqual(lines, [
      'warning: ApplicationProtocol trpc-b: spec.codec: ApplicationProtocol trpc-a also defines protocol "trpc" with codec "codec.a" and is used (the oldest wins): this one is ignored',
      'warning: ApplicationProtocol trpc-a: spec.codec: ApplicationProtocol trpc-b also defines protocol "trpc" with codec "codec.b": this one is used (the oldest wins), that one is ignored',
    ]);
  });

  it('a built-in protocol with another codec is ignored: a warning; with the built-in codec, nothing', () => {
    const other = applicationProtocol('dubbo', 'dubbo', 'my.dubbo', 1);
    const builtin = applicationProtocol('dubbo-builtin', 'dubbo', 'aeraki.meta_protocol.codec.dubbo', 1);
    const lines = metaProtocolConflicts(storeOf([se, mr, other, builtin])).map(issueLine);
    assert.deepEqual(lines, [
      'warning: ApplicationProtocol dubbo: spec.codec: protocol "dubbo" is built in with codec "aeraki.meta_protocol.codec.dubbo": this codec is ignored',
    ]);
  });
});
