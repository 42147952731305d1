// Dubbo's naming in Nacos: interface-level providers register as `providers:<interface>:<version>:<group>`
// (consumers as `consumers:...`); Dubbo 3 application-level instances register under the application's plain name
// with `dubbo.*` metadata (metadata revision, endpoints, storage type).
import type { DubboProvider } from '../../model/registry-bridge.ts';
import type { NacosInstance } from './api.ts';

export type NacosServiceName =
  | { readonly kind: 'interface'; readonly iface: string; readonly version: string; readonly group: string }
  | { readonly kind: 'consumer' }
  | { readonly kind: 'plain'; readonly name: string };

/** Classifies a Nacos service name. `providers:` with no interface counts as a consumer-like skip. */
export function parseServiceName(name: string): NacosServiceName {
  if (name.startsWith('consumers:')) return { kind: 'consumer' };
  if (!name.startsWith('providers:')) return { kind: 'plain', name };
  const [, iface = '', version = '', group = ''] = name.split(':');
  if (iface === '') return { kind: 'consumer' };
  return { kind: 'interface', iface, version, group };
}

/** Where a service was read, for warnings: `nacos <namespace>/<group>/<service>`. */
export interface NacosServiceRef {
  readonly namespace: string;
  readonly group: string;
  readonly service: string;
}

/** True when instance metadata marks a Dubbo 3 application instance. */
export function isDubboApplicationInstance(i: NacosInstance): boolean {
  return Object.keys(i.metadata).some((k) => k.startsWith('dubbo.'));
}

/** An instance serves only when healthy and enabled (Nacos keeps unhealthy and disabled ones listed). */
export function isServing(i: NacosInstance): boolean {
  return i.healthy && i.enabled;
}

/**
 * The providers of one Nacos service: its serving instances, as interface-level providers for
 * `providers:<interface>:...` names, or application-level ones for plain names whose instances carry Dubbo metadata.
 * Other services (consumers, non-Dubbo applications) give none.
 */
export function toProviders(ref: NacosServiceRef, instances: readonly NacosInstance[]): DubboProvider[] {
  const parsed = parseServiceName(ref.service);
  if (parsed.kind === 'consumer') return [];
  const serving = instances.filter(isServing);
  if (parsed.kind === 'plain' && !serving.some(isDubboApplicationInstance)) return [];
  const origin = `nacos ${ref.namespace}/${ref.group}/${ref.service}`;
  return serving.map((i) => {
    const params = i.metadata;
    const base = { address: i.ip, port: i.port, params, origin };
    if (parsed.kind === 'plain') {
      return { ...base, service: parsed.name, level: 'application', group: '', version: '' } as const;
    }
    return {
      ...base,
      service: parsed.iface,
      level: 'interface',
      group: parsed.group || (params['group'] ?? ''),
      version: parsed.version || (params['version'] ?? ''),
    } as const;
  });
}
