// The fake kube-apiserver's public surface (see README.md in this folder).
export {
  FakeKubeApiServer,
  startFakeKubeApiServer,
  type FakeKubeApiServerOptions,
  type RefLike,
} from './server.ts';
export type { Fault, FaultMatch, FaultSpec } from './faults.ts';
export { DEFAULT_RESOURCES } from './registry.ts';
export { kubeConfigOptions, writeKubeconfig, type KubeconfigOptions } from './kubeconfig.ts';
export { testTls, type TestTls } from './tls.ts';
export type {
  KubeObject,
  ManagedFieldsEntry,
  RequestRecord,
  ResourceRef,
  ResourceType,
  Verb,
} from './types.ts';
