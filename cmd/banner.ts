/** What `aeraki serve` prints on stdout for a person: where things are and how to look at them. */
import path from 'node:path';
import { certProviderOf, mcpServerTls, type ServeOptions } from '../src/app/options.ts';
import { outputOf } from '../src/app/outputs.ts';
import type { RunningServe } from '../src/app/serve.ts';
import { sourceOf } from '../src/app/source-list.ts';

type Write = (text: string) => void;

function rel(p: string): string {
  const r = path.relative(process.cwd(), p);
  return r === '' || r.startsWith('..') ? p : r;
}

/** What the serve banner reads of the running controller: the addresses it listens on and its certificates. */
export type BannerFacts = Pick<
  RunningServe,
  'rdsAddress' | 'webhookAddress' | 'adminAddress' | 'debugAddress' | 'devCerts'
>;

/**
 * Where things are: config source, output, RDS, webhook, admin and (when on) the debug listener with the debug
 * page's address (`/debug/`) and the `aeraki proxy-status` command that reads the same listener.
 */
export function printServeBanner(o: ServeOptions, s: BannerFacts, write: Write): void {
  const source = sourceOf(o.source.kind).banner(o.source, rel);
  const lines = [`aeraki serve: config from ${source}`];
  lines.push(`  EnvoyFilters -> ${outputOf(o.output.kind).banner(o.output, rel)}`);
  const provider = certProviderOf(o.identity, o.rds.insecure, mcpServerTls(o.registries));
  const rdsTls = o.rds.insecure ? ', plaintext' : `, mTLS, certificate: ${provider ?? 'none'}`;
  lines.push(`  RDS (gRPC${rdsTls}) on ${s.rdsAddress}`);
  if (s.webhookAddress) lines.push(`  validating webhook (HTTPS) on https://${s.webhookAddress}/validate`);
  lines.push(`  admin on http://${s.adminAddress}  (/healthz /readyz /metrics)`);
  if (s.debugAddress) {
    const debug = `http://${s.debugAddress}`;
    lines.push(`  debug on ${debug}  (/debug/config /debug/envoyfilters /debug/routes /debug/proxies)`);
    lines.push(
      `  debug page on ${debug}/debug/  (in a shell: node bin/aeraki.js proxy-status --debug-address ${s.debugAddress})`,
    );
  }
  if (s.devCerts) {
    const p = s.devCerts.paths;
    lines.push(`  development certificates${s.devCerts.generated ? ' (generated now)' : ''}:`);
    lines.push(`    CA ${rel(p.ca)}  client cert ${rel(p.clientCert)}  client key ${rel(p.clientKey)}`);
  }
  write(`${lines.join('\n')}\n`);
}

export function printSyncedBanner(o: ServeOptions, s: RunningServe, write: Write): void {
  const names = [...s.cache.snapshot().resources.keys()];
  const lines = [`config synced; ${names.length} route configuration(s) served`];
  if (names.length > 0) {
    const tls = s.devCerts
      ? ` --ca ${rel(s.devCerts.paths.ca)} --cert ${rel(s.devCerts.paths.clientCert)} --key ${rel(s.devCerts.paths.clientKey)}`
      : o.rds.insecure
        ? ' --insecure'
        : ' --ca <ca.crt> --cert <client.crt> --key <client.key>';
    const host = s.rdsAddress.startsWith('0.0.0.0:') ? `127.0.0.1:${s.rdsPort}` : s.rdsAddress;
    lines.push(
      `watch routes: node bin/aeraki.js routes --rds-address ${host}${tls} ${names.slice(0, 3).join(' ')}`,
    );
  }
  write(`${lines.join('\n')}\n`);
}
