import { DEFAULT_ROOT_NAMESPACE } from './constants.ts';
import type { MeshConfig } from './objects.ts';

/**
 * Istio's DefaultMeshConfig() for the fields the controller uses: no access log, TEXT encoding, tracing on,
 * defaultConfig.tracing present (zipkin) with sampling 0.
 */
export const DEFAULT_MESH_CONFIG: MeshConfig = Object.freeze({
  accessLogFile: '',
  accessLogEncoding: 'TEXT',
  accessLogFormat: '',
  enableTracing: true,
  tracingSampling: 0,
  rootNamespace: DEFAULT_ROOT_NAMESPACE,
});
