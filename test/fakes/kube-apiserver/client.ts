// A client-node KubeConfig for a fake server (kept apart: importing client-node costs ~0.5 s).
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigOptions, type KubeconfigOptions, type KubeconfigTarget } from './kubeconfig.ts';

export function fakeKubeConfig(api: KubeconfigTarget, o: KubeconfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions(kubeConfigOptions(api, o));
  return kc;
}
