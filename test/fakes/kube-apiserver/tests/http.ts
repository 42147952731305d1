// Raw HTTP helpers for the protocol tests (fetch; watch streams read line by line).
import type { FakeKubeApiServer } from '../server.ts';

export interface Answer {
  status: number;
  body: any;
}

export async function call(
  api: FakeKubeApiServer,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  const res = await fetch(api.url + path, {
    method,
    headers: { 'content-type': contentType },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export const EF = '/apis/networking.istio.io/v1alpha3/namespaces/ns1/envoyfilters';

export function envoyFilter(name: string, spec: unknown = { a: 1 }, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: { name, namespace: 'ns1', ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    spec,
  };
}

/** An open watch: collects events; `next()` waits for the next one (bounded by a deadline). */
export class WatchReader {
  readonly events: { type: string; object: any }[] = [];
  ended = false;
  private waiters: (() => void)[] = [];
  private readonly ctrl = new AbortController();

  static async open(api: FakeKubeApiServer, path: string): Promise<WatchReader> {
    const w = new WatchReader();
    const res = await fetch(api.url + path, { signal: w.ctrl.signal });
    if (res.status !== 200 || !res.body) throw new Error(`watch answered ${res.status}`);
    void w.pump(res.body);
    return w;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const dec = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of body) {
        buf += dec.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) this.events.push(JSON.parse(line));
          this.wake();
        }
      }
    } catch {
      // aborted
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when `n` events have arrived (or the stream ended); rejects after `ms`. */
  async waitFor(n: number, ms = 3000): Promise<{ type: string; object: any }[]> {
    const deadline = Date.now() + ms;
    while (this.events.length < n && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${n} events; got ${JSON.stringify(this.events.map((e) => e.type))}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.events;
  }

  /** Resolves when the server ends the stream; rejects after `ms`. */
  async waitEnd(ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('watch did not end');
      await this.waitFor(this.events.length + 1, deadline - Date.now()).catch(() => undefined);
    }
  }

  close(): void {
    this.ctrl.abort();
  }
}
