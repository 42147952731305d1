// Kubeconfigs pointing at a fake server: options for client-node's loadFromOptions, or a file for kubectl/python.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigTarget {
  url: string;
  caPem: string | undefined;
}

export interface KubeconfigOptions {
  /** Bearer token sent by the client (recorded as RequestRecord.token). */
  token?: string;
  namespace?: string;
}

/** For `kc.loadFromOptions(...)`: skipTLSVerify on plain HTTP (client-node demands it), caData on HTTPS. */
export function kubeConfigOptions(api: KubeconfigTarget, o: KubeconfigOptions = {}) {
  const cluster = api.caPem
    ? {
        name: 'fake',
        server: api.url,
        caData: Buffer.from(api.caPem).toString('base64'),
        skipTLSVerify: false,
      }
    : { name: 'fake', server: api.url, skipTLSVerify: true };
  return {
    clusters: [cluster],
    users: [o.token ? { name: 'fake', token: o.token } : { name: 'fake' }],
    contexts: [
      { name: 'fake', cluster: 'fake', user: 'fake', ...(o.namespace ? { namespace: o.namespace } : {}) },
    ],
    currentContext: 'fake',
  };
}

/** A kubeconfig file (YAML) in `dir`; returns its path. */
export function writeKubeconfig(api: KubeconfigTarget, dir: string, o: KubeconfigOptions = {}): string {
  const cluster: Record<string, unknown> = { server: api.url };
  if (api.caPem) cluster['certificate-authority-data'] = Buffer.from(api.caPem).toString('base64');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'fake', cluster }],
    users: [{ name: 'fake', user: o.token ? { token: o.token } : {} }],
    contexts: [
      {
        name: 'fake',
        context: { cluster: 'fake', user: 'fake', ...(o.namespace ? { namespace: o.namespace } : {}) },
      },
    ],
    'current-context': 'fake',
  };
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(doc));
  return file;
}
