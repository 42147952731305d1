/**
 * A Kubernetes `v1 Service` converted into the ServiceEntry istiod synthesises for it and sends over MCP (istio
 * pilot/pkg/serviceregistry/kube/conversion.go ConvertService, then serviceentry/conversion.go
 * ServiceToServiceEntry), so that `--config-source kube`, `--config-source dir` and `aeraki render` see a Service
 * as the controller sees it over MCP:
 * - host `<name>.<namespace>.svc.<cluster domain>`;
 * - addresses: `spec.clusterIPs` when it holds more than one address (dual stack), else `spec.clusterIP`; none for
 *   a headless Service (`None`), a Service without a cluster IP, or an `ExternalName` Service;
 * - ports: name (`''` when not given), number, Kubernetes protocol (default `TCP`), a numeric `targetPort` (a named
 *   one as `targetPortName`: inbound filters match the port the workloads receive on, D16);
 * - `spec.selector` → `workloadSelector.labels` (none when empty: such a Service has only outbound filters);
 * - resolution `NONE` for headless, `DNS` for ExternalName, else `STATIC`; location `MESH_EXTERNAL` for
 *   ExternalName, else `MESH_INTERNAL`; the `networking.istio.io/exportTo` annotation → `exportTo`.
 * What istiod does and this does not is listed in the README ("Kubernetes Services").
 */
import type { ObjectMeta, ServiceEntrySpec, ServicePort } from '../objects.ts';
import type { Fields, Raw } from './fields.ts';

/** The Kubernetes ServicePort fields the conversion reads. */
export interface KubeServicePort {
  readonly name: string;
  readonly port: number;
  readonly protocol: string;
  /** A port number, or the name of a container port. */
  readonly targetPort?: number | string;
}

/** The Kubernetes ServiceSpec fields the conversion reads. */
export interface KubeServiceSpec {
  /** `ClusterIP` when not given. */
  readonly type: string;
  /** `''` when not given (not allocated yet, or an ExternalName Service); `None` for a headless Service. */
  readonly clusterIP: string;
  readonly clusterIPs: readonly string[];
  readonly externalName: string;
  readonly selector: Readonly<Record<string, string>>;
  readonly ports: readonly KubeServicePort[];
}

export const HEADLESS_CLUSTER_IP = 'None';
/** Istio's annotation of a Service's visibility (comma-separated namespaces, `.` or `*`). */
export const EXPORT_TO_ANNOTATION = 'networking.istio.io/exportTo';

/** The FQDN of a Kubernetes Service (istio kube.ServiceHostname). */
export function serviceHost(name: string, namespace: string, clusterDomain: string): string {
  return `${name}.${namespace}.svc.${clusterDomain}`;
}

function readTargetPort(f: Fields, o: Raw, path: string): number | string | undefined {
  const v = o['targetPort'];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  return f.integer(o, 'targetPort', path, 1, 65535);
}

function readPort(f: Fields, o: Raw, path: string): KubeServicePort | undefined {
  const port = f.integer(o, 'port', `${path}.port`, 1, 65535);
  if (o['port'] === undefined || o['port'] === null) f.error(`${path}.port`, 'required field is missing');
  const name = f.string(o, 'name', `${path}.name`) ?? '';
  const protocol = f.string(o, 'protocol', `${path}.protocol`) ?? 'TCP';
  const targetPort = readTargetPort(f, o, `${path}.targetPort`);
  if (port === undefined) return undefined;
  return { name, port, protocol, ...(targetPort !== undefined ? { targetPort } : {}) };
}

/** Reads the fields of a Service's spec the conversion needs; wrong types become issues on `f`. */
export function readKubeServiceSpec(f: Fields, spec: Raw): KubeServiceSpec {
  const type = f.string(spec, 'type', 'spec.type') ?? 'ClusterIP';
  const clusterIP = f.string(spec, 'clusterIP', 'spec.clusterIP') ?? '';
  const externalName = f.string(spec, 'externalName', 'spec.externalName') ?? '';
  return {
    type,
    clusterIP,
    clusterIPs: f.stringList(spec, 'clusterIPs', 'spec.clusterIPs'),
    externalName,
    selector: f.stringMap(spec, 'selector', 'spec.selector'),
    ports: f.objects(spec, 'ports', 'spec.ports', readPort),
  };
}

function addressesOf(spec: KubeServiceSpec, external: boolean): string[] {
  if (external || spec.clusterIP === '' || spec.clusterIP === HEADLESS_CLUSTER_IP) return [];
  return spec.clusterIPs.length > 1 ? [...spec.clusterIPs] : [spec.clusterIP];
}

function convertPort(p: KubeServicePort): ServicePort {
  return {
    number: p.port,
    name: p.name,
    protocol: p.protocol,
    // A named target port is resolved per pod (from the EndpointSlices where they are read, D16).
    ...(typeof p.targetPort === 'number' ? { targetPort: p.targetPort } : {}),
    ...(typeof p.targetPort === 'string' ? { targetPortName: p.targetPort } : {}),
  };
}

function exportToOf(annotations: Readonly<Record<string, string>>): string[] | undefined {
  const value = annotations[EXPORT_TO_ANNOTATION];
  if (value === undefined || value === '') return undefined;
  const namespaces = new Set(value.split(',').map((e) => e.trim()));
  namespaces.delete('');
  return [...namespaces].sort();
}

/**
 * The ServiceEntry spec istiod synthesises for the Service `metadata` (name, namespace, annotations) with `spec`.
 * Pure; total: every parsed Service converts.
 */
export function convertServiceSpec(
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'annotations'>,
  spec: KubeServiceSpec,
  clusterDomain: string,
): ServiceEntrySpec {
  const external = spec.type === 'ExternalName' && spec.externalName !== '';
  const headless = spec.clusterIP === HEADLESS_CLUSTER_IP;
  const exportTo = exportToOf(metadata.annotations);
  return {
    hosts: [serviceHost(metadata.name, metadata.namespace, clusterDomain)],
    addresses: addressesOf(spec, external),
    ports: spec.ports.map(convertPort),
    location: external ? 'MESH_EXTERNAL' : 'MESH_INTERNAL',
    resolution: external ? 'DNS' : headless ? 'NONE' : 'STATIC',
    ...(exportTo !== undefined ? { exportTo } : {}),
    ...(Object.keys(spec.selector).length > 0 ? { workloadSelector: { labels: spec.selector } } : {}),
  };
}
