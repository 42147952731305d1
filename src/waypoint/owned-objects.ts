/**
 * The objects an accepted Gateway `N/W` of our class owns, all named `W` in `N` (the Secret `W-xds`) and all
 * controlled by the Gateway (`ownerReferences` with `controller: true` and `blockOwnerDeletion: true`, so the
 * garbage collector deletes them with it): a ServiceAccount (the proxies' identity,
 * `spiffe://<td>/ns/N/sa/W`), a Service (port 15088 `proxy`), a Deployment running Envoy, and the Secret with the
 * proxies' xDS credential. Pure: bodies for server-side apply (apiVersion, kind, the fields we own).
 *
 * The pods are labelled `gateway.networking.k8s.io/gateway-name: W` (istiod finds a waypoint's instances by it:
 * waypoints.go:236) and `istio.io/dataplane-mode: ambient` (ztunnel must capture the waypoint to terminate HBONE
 * and prepend the PROXY header, and it carries the waypoint's own outbound: docs/waypoint-own.md section 1). The
 * Service carries `gateway.istio.io/managed: istio.io-mesh-controller`, so istiod never binds it to a waypoint
 * itself (waypoints.go fetchWaypointForService; model/ambient/labels.ts).
 */
import {
  DATAPLANE_MODE_AMBIENT,
  DATAPLANE_MODE_LABEL,
  GATEWAY_MANAGED_LABEL,
  GATEWAY_MANAGED_NO_WAYPOINT,
  GATEWAY_NAME_LABEL,
} from '../model/ambient/labels.ts';
import {
  OWN_WAYPOINT_LISTENER_NAME,
  OWN_WAYPOINT_PORT,
  waypointSecretName,
} from '../model/ambient/own-waypoint.ts';
import { MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import { XDS_MOUNT, sdsFiles, waypointBootstrap, type WaypointBootstrapOptions } from './bootstrap.ts';
import { GATEWAY_API, type GatewayInfo } from './gateway-objects.ts';

/** A body to apply: apiVersion, kind, metadata with name and namespace, and the rest. */
export interface OwnedBody {
  readonly apiVersion: string;
  readonly kind: 'ServiceAccount' | 'Service' | 'Deployment' | 'Secret';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly ownerReferences: readonly Record<string, unknown>[];
  };
  readonly [field: string]: unknown;
}

export interface OwnedSettings extends Omit<WaypointBootstrapOptions, 'namespace' | 'name'> {
  /** `--waypoint-image`: the image when the Gateway has no `aeraki.io/proxy-image`. */
  readonly image: string;
}

/** The Secret's credential: PEM client certificate chain and key, and the root verifying the controller. */
export interface WaypointCredential {
  readonly cert: string;
  readonly key: string;
  readonly serverRoot: string;
}

/** The label selecting the Services this controller owns (its informer's selector). */
export const OWNED_SERVICE_SELECTOR = `${MANAGER_LABEL}=${MANAGER_VALUE},${GATEWAY_NAME_LABEL}`;

function meta(g: GatewayInfo, name: string, labels: Record<string, string> = {}): OwnedBody['metadata'] {
  return {
    name,
    namespace: g.namespace,
    labels: { [GATEWAY_NAME_LABEL]: g.name, [MANAGER_LABEL]: MANAGER_VALUE, ...labels },
    ownerReferences: [
      {
        apiVersion: GATEWAY_API,
        kind: 'Gateway',
        name: g.name,
        uid: g.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
}

export function serviceAccountOf(g: GatewayInfo): OwnedBody {
  // Envoy never calls the Kubernetes API: no token in its pods (ztunnel gets the identity on its own).
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: meta(g, g.name),
    automountServiceAccountToken: false,
  };
}

export function serviceOf(g: GatewayInfo): OwnedBody {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(g, g.name, { [GATEWAY_MANAGED_LABEL]: GATEWAY_MANAGED_NO_WAYPOINT[0] }),
    spec: {
      selector: { [GATEWAY_NAME_LABEL]: g.name },
      ports: [
        {
          name: OWN_WAYPOINT_LISTENER_NAME,
          port: OWN_WAYPOINT_PORT,
          targetPort: OWN_WAYPOINT_PORT,
          protocol: 'TCP',
        },
      ],
    },
  };
}

/**
 * The Deployment. Readiness is a TCP probe of the 15088 listener: Envoy binds it only once it received it over
 * ADS, which needs the mounted credential to be valid and the controller to trust it, so a ready pod is a
 * programmed one. Envoy's `/ready` is not used: the admin interface listens on 127.0.0.1 only, which the kubelet's
 * probes (sent to the pod IP) cannot reach, and exposing it would expose the whole admin API.
 */
export function deploymentOf(g: GatewayInfo, s: OwnedSettings): OwnedBody {
  const bootstrap = waypointBootstrap({ ...s, namespace: g.namespace, name: g.name });
  const podLabels = { [GATEWAY_NAME_LABEL]: g.name, [DATAPLANE_MODE_LABEL]: DATAPLANE_MODE_AMBIENT };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(g, g.name),
    spec: {
      replicas: 1,
      selector: { matchLabels: { [GATEWAY_NAME_LABEL]: g.name } },
      template: {
        metadata: { labels: podLabels },
        spec: {
          serviceAccountName: g.name,
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'envoy',
              image: g.image ?? s.image,
              args: ['--config-yaml', JSON.stringify(bootstrap), '--service-node', '$(POD_NAME)'],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [
                { name: OWN_WAYPOINT_LISTENER_NAME, containerPort: OWN_WAYPOINT_PORT, protocol: 'TCP' },
              ],
              readinessProbe: { tcpSocket: { port: OWN_WAYPOINT_PORT }, periodSeconds: 5 },
              volumeMounts: [{ name: 'xds', mountPath: XDS_MOUNT, readOnly: true }],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                runAsUser: 101,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
          volumes: [{ name: 'xds', secret: { secretName: waypointSecretName(g.name) } }],
        },
      },
    },
  };
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** The Secret `W-xds` (type kubernetes.io/tls): `tls.crt`, `tls.key`, `ca.crt`, and the two static SDS files. */
export function secretOf(g: GatewayInfo, c: WaypointCredential): OwnedBody {
  const data: Record<string, string> = {
    'tls.crt': b64(c.cert),
    'tls.key': b64(c.key),
    'ca.crt': b64(c.serverRoot),
  };
  for (const [k, v] of Object.entries(sdsFiles())) data[k] = b64(v);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(g, waypointSecretName(g.name)),
    type: 'kubernetes.io/tls',
    data,
  };
}

/** The credential of a Secret's `data`, undefined when a key is missing. */
export function credentialOf(
  data: Readonly<Record<string, string>> | undefined,
): WaypointCredential | undefined {
  const get = (k: string) =>
    data?.[k] !== undefined ? Buffer.from(data[k], 'base64').toString('utf8') : undefined;
  const cert = get('tls.crt');
  const key = get('tls.key');
  const serverRoot = get('ca.crt');
  return cert && key && serverRoot ? { cert, key, serverRoot } : undefined;
}
