/**
 * `aeraki proxy-status [proxy]`: reads /debug/proxies of a running controller and prints, per source object, how
 * many proxies acknowledged, are pending on and reject what it made (src/tools/proxy-status-table.ts); with
 * `--proxies` one row per proxy too; with a proxy id (or `<pod>.<ns>`) that proxy's routes and listener rejection.
 * Exit codes: 0 once the document was read and printed; 1 when the controller cannot be reached (or answers
 * something else), or the named proxy is not in the document.
 */
import type { ProxyStatusOptions } from './proxy-status-config.ts';

export async function runProxyStatus(proxy: string | undefined, o: ProxyStatusOptions): Promise<number> {
  const { fetchProxiesDocument } = await import('../src/tools/proxy-status-fetch.ts');
  const t = await import('../src/tools/proxy-status-table.ts');
  const read = await fetchProxiesDocument(o.debugAddress.host, o.debugAddress.port, o.timeoutMs);
  if (!read.ok) {
    process.stderr.write(`error: ${read.message}\n`);
    return 1;
  }
  const doc = read.doc;
  const wide = o.output === 'wide';
  const { stringify } = await import('yaml');
  // json and yaml: the same rows, errors whole.
  const print = (value: unknown): void =>
    void process.stdout.write(o.output === 'yaml' ? stringify(value) : `${JSON.stringify(value, null, 2)}\n`);
  const data = o.output === 'json' || o.output === 'yaml';
  if (proxy !== undefined) {
    const detail = t.proxyDetail(doc, proxy);
    if (!detail) {
      process.stderr.write(
        `error: proxy ${proxy} is not connected to the RDS server nor reported rejecting\n`,
      );
      return 1;
    }
    if (data) print(detail);
    else process.stdout.write(t.formatDetail(doc, detail, wide));
    return 0;
  }
  const sources = t.sourceRows(doc);
  if (data) {
    print({ sources, ...(o.proxies ? { proxies: t.proxyRows(doc) } : {}) });
  } else {
    process.stdout.write(t.formatSources(sources, wide));
    if (o.proxies) process.stdout.write(`\n${t.formatProxies(t.proxyRows(doc), wide)}`);
  }
  for (const note of t.notes(doc)) process.stderr.write(`${note}\n`);
  return 0;
}
