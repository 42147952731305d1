// AdmissionReview bodies as the API server posts them (shapes captured from kube-apiserver 1.29 for
// `kubectl apply` of a MetaRouter: v1, and the v1beta1 a webhook listing v1beta1 first receives).
export const META_ROUTER = {
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: {
    annotations: {
      'kubectl.kubernetes.io/last-applied-configuration':
        '{"apiVersion":"metaprotocol.aeraki.io/v1alpha1"}\n',
    },
    creationTimestamp: '2024-05-02T09:14:27Z',
    generation: 1,
    managedFields: [
      {
        apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { '.': {}, 'f:hosts': {}, 'f:routes': {} } },
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        time: '2024-05-02T09:14:27Z',
      },
    ],
    name: 'test-metaprotocol-route',
    namespace: 'meta-thrift',
    uid: '6f0b1c1e-5b1a-4bfa-9d5e-3c2f0a7c9b11',
  },
  spec: {
    hosts: ['thrift-sample-server.meta-thrift.svc.cluster.local'],
    routes: [
      {
        name: 'v1',
        match: { attributes: { method: { exact: 'sayHello' } } },
        route: [
          { destination: { host: 'thrift-sample-server.meta-thrift.svc.cluster.local', subset: 'v1' } },
        ],
      },
    ],
  },
};

/** The same MetaRouter with a local rate limit lacking fillInterval (an error). */
export const INVALID_META_ROUTER = {
  ...META_ROUTER,
  spec: { ...META_ROUTER.spec, localRateLimit: { tokenBucket: { maxTokens: 5, tokensPerFill: 5 } } },
};

const GVK = { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', kind: 'MetaRouter' };
const GVR = { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', resource: 'metarouters' };

export function reviewV1(object: unknown, uid: string, operation = 'CREATE', kind: object = GVK): object {
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid,
      kind,
      resource: GVR,
      requestKind: kind,
      requestResource: GVR,
      name: 'test-metaprotocol-route',
      namespace: 'meta-thrift',
      operation,
      userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object: operation === 'DELETE' ? null : object,
      oldObject: operation === 'CREATE' ? null : object,
      dryRun: false,
      options: {
        kind: operation === 'DELETE' ? 'DeleteOptions' : 'CreateOptions',
        apiVersion: 'meta.k8s.io/v1',
        fieldManager: 'kubectl-client-side-apply',
        fieldValidation: 'Strict',
      },
    },
  };
}

export function reviewV1beta1(object: unknown, uid: string, operation = 'CREATE'): object {
  const v1 = reviewV1(object, uid, operation) as { request: object };
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1beta1', request: v1.request };
}
