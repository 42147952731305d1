/** Reads `/debug/proxies` from a running controller's debug listener (plain HTTP; loopback by default). */
import { request } from 'node:http';
import { readProxiesDocument, type ProxiesDocument } from './proxies-document.ts';

/** The largest document read (a controller with thousands of proxies stays well under it). */
const MAX_BYTES = 64 * 1024 * 1024;

export type FetchResult =
  { readonly ok: true; readonly doc: ProxiesDocument } | { readonly ok: false; readonly message: string };

/**
 * GET http://<host>:<port>/debug/proxies within `timeoutMs`. Not ok, with a message naming the address, when the
 * listener cannot be reached, answers other than 200, or sends something that is not the document.
 */
export function fetchProxiesDocument(host: string, port: number, timeoutMs: number): Promise<FetchResult> {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const fail = (message: string): FetchResult => ({ ok: false, message: `${where}: ${message}` });
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/debug/proxies', method: 'GET', timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BYTES) {
          req.destroy();
          resolve(fail(`the answer is larger than ${MAX_BYTES} bytes`));
        } else chunks.push(c);
      });
      res.on('error', (err) => resolve(fail(err.message)));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 404) {
          resolve(
            fail('no /debug/proxies here (is this the --debug-address of aeraki serve --debug-endpoints?)'),
          );
          return;
        }
        if (res.statusCode !== 200) {
          resolve(fail(`HTTP ${res.statusCode ?? '?'}: ${body.slice(0, 200)}`));
          return;
        }
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch {
          resolve(fail('/debug/proxies is not JSON'));
          return;
        }
        const read = readProxiesDocument(value);
        resolve(read.ok ? read : fail(`not a /debug/proxies document: ${read.reason}`));
      });
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(fail(`no answer within ${timeoutMs} ms`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const hint = err.code === 'ECONNREFUSED' ? ' (is aeraki serve running with --debug-endpoints?)' : '';
      resolve(fail(`cannot reach the controller's debug listener: ${err.code ?? err.message}${hint}`));
    });
    req.end();
  });
}
