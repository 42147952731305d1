/**
 * A registry ServiceEntry (types.ts, the wire shape the bridge writes and serves) as the typed object the config
 * store holds (model/objects.ts IstioServiceEntry), built directly from the bridge's fields: the same object, frozen,
 * that parsing its wire form would give (model/parse/parse.ts), and refused for the same errors (the ServiceEntry
 * rules of model/validate/istio-entries.ts).
 */
import type { IstioServiceEntry } from '../model/objects.ts';
import { hasErrors, type ConfigIssue, type Result } from '../model/result.ts';
import { serviceEntryIssues } from '../model/validate/istio-entries.ts';
import { deepFreeze } from '../util/json.ts';
import type { RegistryServiceEntry } from './types.ts';

export function typedServiceEntry(se: RegistryServiceEntry): Result<IstioServiceEntry> {
  const { name, namespace, labels, annotations } = se.metadata;
  const s = se.spec;
  const spec = {
    hosts: [...s.hosts],
    addresses: [...s.addresses],
    ports: s.ports.map((p) => ({ number: p.number, name: p.name, protocol: p.protocol })),
    location: s.location,
    resolution: s.resolution,
    // As model/parse/istio-extras.ts readEndpoints reads them (ports and labels in key order).
    endpoints: s.endpoints.map((e) => ({
      address: e.address,
      ports: sortedKeys(e.ports),
      labels: sortedKeys(e.labels),
      ...(e.weight !== undefined ? { weight: e.weight } : {}),
    })),
  };
  const issues: ConfigIssue[] = serviceEntryIssues(spec, { kind: 'ServiceEntry', namespace, name });
  if (hasErrors(issues)) return { ok: false, issues };
  const obj: IstioServiceEntry = {
    apiVersion: se.apiVersion,
    kind: 'ServiceEntry',
    metadata: {
      name,
      namespace,
      labels: { ...labels },
      annotations: { ...annotations },
      creationTimestamp: '',
      resourceVersion: '',
    },
    spec,
  };
  return { ok: true, value: deepFreeze(obj), issues };
}

function sortedKeys<V>(m: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((k) => [k, m[k]!]),
  );
}
