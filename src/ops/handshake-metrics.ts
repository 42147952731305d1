/**
 * The handshake guards' metrics (src/util/handshake-guard.ts), read at scrape time from the `handshakes` status
 * provider: `aeraki_tls_handshakes_total{listener,result}` and `aeraki_tls_handshakes_pending{listener}`. Listeners
 * are `rds`, `mcp` and `webhook`; results `completed`, `failed`, `timeout`, `rejected_over_limit`,
 * `rejected_source_limit` and `evicted`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadProvider } from './status-metrics.ts';

export function createHandshakeMetrics(registers: Registry[], read: ReadProvider) {
  const handshakes = new Counter({
    name: 'aeraki_tls_handshakes_total',
    help: 'Connections by how their handshake ended: completed, failed (closed by the client or a TLS error), timeout (not finished within --tls-handshake-timeout), rejected_over_limit (over --tls-max-pending-handshakes), rejected_source_limit (over --tls-max-pending-handshakes-per-source from one source address), evicted (the oldest of the busiest source, closed to make room for a source holding fewer).',
    labelNames: ['listener', 'result'],
    registers,
    collect: () => {
      const all = read((p) => p.handshakes?.());
      handshakes.reset();
      for (const s of all ?? []) {
        for (const [result, n] of Object.entries(s.results))
          handshakes.inc({ listener: s.listener, result }, n);
      }
    },
  });
  const pending = new Gauge({
    name: 'aeraki_tls_handshakes_pending',
    help: 'Connections in their handshake now, per listener.',
    labelNames: ['listener'],
    registers,
    collect: () => {
      const all = read((p) => p.handshakes?.());
      pending.reset();
      for (const s of all ?? []) pending.set({ listener: s.listener }, s.pending);
    },
  });
  return { handshakes, pending };
}
