// The fake Nacos naming data: namespaces → grouped service names (`<group>@@<service>`) → instances.

/** One instance as Nacos stores it (com.alibaba.nacos.api.naming.pojo.Instance). */
export interface FakeInstance {
  readonly ip: string;
  readonly port: number;
  readonly weight: number;
  readonly healthy: boolean;
  readonly enabled: boolean;
  readonly ephemeral: boolean;
  readonly clusterName: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export const DEFAULT_NAMESPACE = 'public';
export const DEFAULT_GROUP = 'DEFAULT_GROUP';
export const DEFAULT_CLUSTER = 'DEFAULT';

/** Splits `group@@service` (the form the official clients send) into its parts; a bare name is in `group`. */
export function splitGrouped(serviceName: string, group: string | undefined): [string, string] {
  const at = serviceName.indexOf('@@');
  if (at >= 0) return [serviceName.slice(0, at), serviceName.slice(at + 2)];
  return [group || DEFAULT_GROUP, serviceName];
}

/** The empty namespace and `public` are the same namespace, as in Nacos. */
export function namespaceOf(id: string | undefined): string {
  return id === undefined || id === '' ? DEFAULT_NAMESPACE : id;
}

export class FakeNacosStore {
  /** namespace → `group@@service` → `ip#port#cluster` → instance. */
  private readonly data = new Map<string, Map<string, Map<string, FakeInstance>>>();

  register(
    namespace: string,
    group: string,
    service: string,
    instance: Partial<FakeInstance> & { ip: string; port: number },
  ): void {
    const ns = this.data.get(namespace) ?? new Map<string, Map<string, FakeInstance>>();
    this.data.set(namespace, ns);
    const key = `${group}@@${service}`;
    const svc = ns.get(key) ?? new Map<string, FakeInstance>();
    ns.set(key, svc);
    const full: FakeInstance = {
      weight: 1,
      healthy: true,
      enabled: true,
      ephemeral: true,
      clusterName: DEFAULT_CLUSTER,
      metadata: {},
      ...instance,
    };
    svc.set(`${full.ip}#${full.port}#${full.clusterName}`, full);
  }

  /** Removes one instance; the service stays listed (empty), as Nacos keeps empty services for a while. */
  deregister(
    namespace: string,
    group: string,
    service: string,
    ip: string,
    port: number,
    cluster = DEFAULT_CLUSTER,
  ): boolean {
    return this.data.get(namespace)?.get(`${group}@@${service}`)?.delete(`${ip}#${port}#${cluster}`) ?? false;
  }

  /** Removes a service and its instances. */
  removeService(namespace: string, group: string, service: string): void {
    this.data.get(namespace)?.delete(`${group}@@${service}`);
  }

  /** Service names of one group, sorted. */
  services(namespace: string, group: string): string[] {
    const prefix = `${group}@@`;
    return [...(this.data.get(namespace)?.keys() ?? [])]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .sort();
  }

  instances(namespace: string, group: string, service: string): FakeInstance[] {
    return [...(this.data.get(namespace)?.get(`${group}@@${service}`)?.values() ?? [])];
  }

  /** Changes fields of every instance of a service matching `ip` (and `port` when given). */
  patch(
    namespace: string,
    group: string,
    service: string,
    ip: string,
    change: Partial<FakeInstance>,
    port?: number,
  ): void {
    const svc = this.data.get(namespace)?.get(`${group}@@${service}`);
    if (!svc) return;
    for (const [k, inst] of svc) {
      if (inst.ip === ip && (port === undefined || inst.port === port)) svc.set(k, { ...inst, ...change });
    }
  }
}
