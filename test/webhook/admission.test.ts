// answerReview: the decision for one AdmissionReview (no HTTP), with a validator stub and the real one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generationCheck } from '../../src/app/validate.ts';
import { warning } from '../../src/model/result.ts';
import { validateObjects } from '../../src/model/validate/validate.ts';
import { answerReview, validatedKinds, type ObjectValidator } from '../../src/webhook/admission.ts';
import { INVALID_META_ROUTER, META_ROUTER, reviewV1, reviewV1beta1 } from './reviews.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

const real: ObjectValidator = (o) =>
  validateObjects([o], {
    rootNamespace: 'istio-system',
    parseOptions: PARSE_OPTIONS,
    check: generationCheck({ rootNamespace: 'istio-system', namespaceScope: false }),
  }).issues;

const VALIDATED = validatedKinds(createPluginKinds());

const NO_SERVICE_ENTRY_WARNING =
  'MetaRouter meta-thrift/test-metaprotocol-route: spec.hosts[0]: no ServiceEntry has "thrift-sample-server.meta-thrift.svc.cluster.local" as its first host: this MetaRouter configures no sidecar and no MetaProtocol routes are served for it';

function answer(body: unknown, validate: ObjectValidator = real) {
  const out = answerReview(body, validate, VALIDATED);
  assert.ok(out.ok, 'a review');
  return out;
}

describe('answerReview', () => {
  it('allows a valid MetaRouter, answering in the request version with its uid', () => {
    for (const [make, version] of [
      [reviewV1, 'admission.k8s.io/v1'],
      [reviewV1beta1, 'admission.k8s.io/v1beta1'],
    ] as const) {
      const out = answer(make(META_ROUTER, 'uid-1'));
      // Checked alone, the MetaRouter's host has no ServiceEntry: allowed, with that warning.
      assert.deepEqual(out.review, {
        apiVersion: version,
        kind: 'AdmissionReview',
        response: { uid: 'uid-1', allowed: true, warnings: [NO_SERVICE_ENTRY_WARNING] },
      });
    }
  });

  it('denies an invalid MetaRouter with the error lines', () => {
    const r = answer(reviewV1(INVALID_META_ROUTER, 'uid-2')).response;
    assert.equal(r.allowed, false);
    assert.equal(r.uid, 'uid-2');
    assert.equal(
      r.status?.message,
      'configuration is invalid: MetaRouter meta-thrift/test-metaprotocol-route: spec.localRateLimit.tokenBucket.fillInterval: required field is missing (a token bucket needs maxTokens, tokensPerFill and fillInterval)',
    );
  });

  it('denies what breaks only a rule of admission hygiene (the controller would render it with a warning)', () => {
    const host = 'thrift-sample-server.meta-thrift.svc.cluster.local';
    const split = {
      ...META_ROUTER,
      spec: {
        hosts: [host],
        routes: [
          {
            route: [
              { destination: { host, subset: 'v1' }, weight: 30 },
              { destination: { host, subset: 'v2' }, weight: 60 },
            ],
          },
        ],
      },
    };
    const r = answer(reviewV1(split, 'uid-4')).response;
    assert.equal(r.allowed, false);
    assert.equal(
      r.status?.message,
      'configuration is invalid: MetaRouter meta-thrift/test-metaprotocol-route: spec.routes[0].route: the weights of several destinations must add up to 100, got 90',
    );
  });

  it('fills the namespace from the request', () => {
    const { metadata, ...rest } = META_ROUTER;
    const { namespace: _ns, ...noNamespace } = metadata;
    let seen: unknown;
    answer(reviewV1({ ...rest, metadata: noNamespace }, 'uid-3'), (o) => {
      seen = (o['metadata'] as { namespace?: string }).namespace;
      return [];
    });
    assert.equal(seen, 'meta-thrift');
  });

  it('allows DELETE and CONNECT without validating', () => {
    for (const op of ['DELETE', 'CONNECT']) {
      const r = answer(reviewV1(INVALID_META_ROUTER, 'uid-4', op), () => assert.fail('validated')).response;
      assert.deepEqual(r, { uid: 'uid-4', allowed: true });
    }
  });

  it('denies an unknown kind "unrecognized type" and unknown top-level keys', () => {
    const gvk = { group: 'networking.istio.io', version: 'v1', kind: 'ServiceEntry' };
    const r = answer(reviewV1(META_ROUTER, 'uid-5', 'CREATE', gvk)).response;
    assert.equal(r.allowed, false);
    assert.match(r.status?.message ?? '', /^unrecognized type networking\.istio\.io\/v1\/ServiceEntry/);
    const extra = answer(reviewV1({ ...META_ROUTER, data: {} }, 'uid-6')).response;
    assert.equal(extra.allowed, false);
    assert.match(extra.status?.message ?? '', /data/);
  });

  it('returns warnings as admission warnings (allowed), beside errors (denied)', () => {
    const ref = { kind: 'MetaRouter', namespace: 'meta-thrift', name: 'test-metaprotocol-route' };
    const r = answer(reviewV1(META_ROUTER, 'uid-7'), () => [
      warning(ref, 'spec.routes[1]', 'unreachable'),
    ]).response;
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, [
      'MetaRouter meta-thrift/test-metaprotocol-route: spec.routes[1]: unreachable',
    ]);
  });

  it('bodies that are not reviews are 400 material', () => {
    for (const body of [
      null,
      [],
      { kind: 'Pod' },
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v2' },
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: {} },
    ]) {
      assert.equal(answerReview(body, real, VALIDATED).ok, false, JSON.stringify(body));
    }
  });
});
