/**
 * The metrics of the controller's own certificate, read at scrape time from the `certificate` status provider
 * (see status-providers.ts): `aeraki_cert_expiry_timestamp_seconds` and `aeraki_cert_renewals_total{result}`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadProvider } from './status-metrics.ts';

export function createCertMetrics(registers: Registry[], read: ReadProvider) {
  const certExpiry = new Gauge({
    name: 'aeraki_cert_expiry_timestamp_seconds',
    help: 'When the certificate the RDS server presents expires (seconds since the epoch); 0 before the first.',
    registers,
    collect: () => {
      const s = read((p) => p.certificate?.());
      certExpiry.reset();
      if (s?.expiresAt !== undefined) certExpiry.set(s.expiresAt / 1000);
    },
  });
  const certRenewals = new Counter({
    name: 'aeraki_cert_renewals_total',
    help: 'Certificate renewals by result: success (a new certificate in use) or failure (the current one kept).',
    labelNames: ['result'],
    registers,
    collect: () => {
      const s = read((p) => p.certificate?.());
      certRenewals.reset();
      if (s === undefined) return;
      certRenewals.inc({ result: 'success' }, s.renewals.success);
      certRenewals.inc({ result: 'failure' }, s.renewals.failure);
    },
  });
  return { certExpiry, certRenewals };
}
