/**
 * Metrics of the registry bridges, read at scrape time from their status (label `registry`: the configured
 * registry names, a small fixed set):
 * `aeraki_registry_services`, `aeraki_registry_endpoints`, `aeraki_registry_connected` (gauges) and
 * `aeraki_registry_sync_errors_total` (connection losses and failed reads, cumulative).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** What the metrics read of one registry (src/registry/bridge.ts RegistryBridgeStatus fits). */
export interface RegistryStatusLike {
  readonly name: string;
  readonly connected: boolean;
  readonly services: number;
  readonly endpoints: number;
  readonly syncErrors: number;
}

/** Registers the registry metrics in `registry`, reading `status()` at every scrape. */
export function registerRegistryMetrics(
  registry: Registry,
  status: () => readonly RegistryStatusLike[],
): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (s: RegistryStatusLike) => number) => {
    const g: Gauge<'registry'> = new Gauge({
      name,
      help,
      labelNames: ['registry'],
      registers,
      collect: () => {
        g.reset();
        for (const s of status()) g.set({ registry: s.name }, value(s));
      },
    });
  };
  gauge(
    'aeraki_registry_services',
    'ServiceEntries a registry bridge currently produces.',
    (s) => s.services,
  );
  gauge('aeraki_registry_endpoints', 'Endpoints of those ServiceEntries.', (s) => s.endpoints);
  gauge('aeraki_registry_connected', '1 while the registry connection is up.', (s) => (s.connected ? 1 : 0));
  const errors: Counter<'registry'> = new Counter({
    name: 'aeraki_registry_sync_errors_total',
    help: 'Registry connection losses and failed reads, by registry.',
    labelNames: ['registry'],
    registers,
    collect: () => {
      errors.reset();
      for (const s of status()) errors.inc({ registry: s.name }, s.syncErrors);
    },
  });
}
