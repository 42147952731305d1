// RBAC from behaviour for the waypoint's Gateway controller (the manifests/waypoint component): the controller runs
// against the fake kube-apiserver through everything it does (our GatewayClass accepted, a Gateway accepted with
// its objects, CA and certificate, a rejected one, a proxy's NACK with its Event), and every call it makes must be
// granted by the base install plus the component (kustomize's, and the Helm chart's with waypoint.enabled), and every grant of the component must be called, except
// gateways/finalizers update, which only the OwnerReferencesPermissionEnforcement admission plugin asks for
// (blockOwnerDeletion in the owned objects' ownerReferences).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  conditionOf,
  gateway,
  harness,
  PROXY_LISTENER,
  waypointClass,
  type Harness,
} from '../waypoint/gateway-support.ts';
import {
  allows,
  atomsOf,
  attributesOf,
  describeAtom,
  describeAttributes,
  installRoles,
} from './rbac-calls.ts';

const TOKEN = 'waypoint-rbac';
const ADMISSION_ONLY = 'ClusterRole/aeraki-waypoint: update gateway.networking.k8s.io/gateways/finalizers';

describe('RBAC from behaviour: the waypoint component grants exactly the Gateway controller calls', () => {
  let h: Harness;
  before(async () => {
    h = await harness({ token: TOKEN });
    h.api.seed([
      waypointClass(),
      gateway('w', [PROXY_LISTENER]),
      gateway('bad', [{ ...PROXY_LISTENER, port: 80 }]),
    ]);
    const gw = (n: string) => h.api.get('gateways.gateway.networking.k8s.io', 'shop', n);
    await h.until(() => conditionOf(gw('w'), 'Programmed') !== undefined, 'accepted');
    h.programs.set({
      gateway: 'shop/w',
      state: 'rejected',
      connected: 1,
      proxy: 'w-1',
      detail: 'bad listener',
    });
    await h.until(() => h.api.writes({ verb: 'create', resource: 'events' }).length === 2, 'Events');
  });
  after(() => h.close());

  it('every call granted with the component, and every grant of the component called', () => {
    const made = new Map<string, NonNullable<ReturnType<typeof attributesOf>>>();
    for (const q of h.api.requests) {
      const a = q.token === TOKEN ? attributesOf(q) : undefined;
      if (a) made.set(describeAttributes(a), a);
    }
    const calls = [...made.values()];
    // Both installs: kustomize's manifests/ with the component, and the Helm chart with waypoint.enabled.
    const bases = new Map(installRoles());
    for (const [install, roles] of installRoles(['waypoint'])) {
      const atoms = roles.flatMap(atomsOf);
      const own = roles.filter((r) => r.metadata.name.startsWith('aeraki-waypoint')).flatMap(atomsOf);
      assert.ok(own.length > 0, `${install}: the component has roles of its own`);
      const ungranted = calls.filter((c) => !atoms.some((a) => allows(a, c))).map(describeAttributes);
      const unused = own
        .filter((a) => !calls.some((c) => allows(a, c)))
        .map(describeAtom)
        .filter((a) => a !== ADMISSION_ONLY);
      assert.deepEqual({ install, ungranted, unused }, { install, ungranted: [], unused: [] });
      const base = bases.get(install)!.flatMap(atomsOf);
      const needsComponent = calls.filter((c) => !base.some((a) => allows(a, c))).map(describeAttributes);
      assert.ok(
        needsComponent.some((c) => c.startsWith('patch gateway.networking.k8s.io/gateways/status')),
        install,
      );
      assert.ok(
        own.some((a) => describeAtom(a) === ADMISSION_ONLY),
        install,
      );
    }
  });
});
