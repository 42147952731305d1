/** `aeraki serve` options of the Kubernetes API client: where it is, and how fast every writer together writes. */
import type { KubeOptions } from '../src/app/options.ts';
import { text, parsePositive, parsePositiveCount } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface KubeFlags {
  readonly kubeconfig: string;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
}

export const KUBE_ROWS = {
  kubeconfig: {
    flag: '--kubeconfig <file>',
    env: 'KUBECONFIG',
    default: '',
    description: 'kubeconfig file (in-cluster configuration when absent)',
    parse: text,
  },
  kubeApiQps: {
    flag: '--kube-api-qps <n>',
    env: 'AERAKI_KUBE_API_QPS',
    default: 50,
    description: 'writes per second to the Kubernetes API, all writers together',
    parse: parsePositive,
  },
  kubeApiBurst: {
    flag: '--kube-api-burst <n>',
    env: 'AERAKI_KUBE_API_BURST',
    default: 100,
    description: 'writes allowed at once above --kube-api-qps after a quiet period',
    parse: parsePositiveCount,
  },
} satisfies RowTable<KubeFlags>;

export function kubeOptions(f: KubeFlags): KubeOptions {
  return { kubeconfig: f.kubeconfig, apiQps: f.kubeApiQps, apiBurst: f.kubeApiBurst };
}
