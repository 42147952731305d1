// The manifests/waypoint component ships the GatewayClass the controller accepts, with the names istiod reads
// (model/ambient/own-waypoint.ts, labels.ts); its grants are checked from behaviour in
// test/security/rbac-waypoint.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { WAYPOINT_FOR_LABEL, WAYPOINT_INBOUND_BINDING_ANNOTATION } from '../../src/model/ambient/labels.ts';
import {
  OWN_WAYPOINT_BINDING,
  OWN_WAYPOINT_CLASS,
  OWN_WAYPOINT_CONTROLLER,
} from '../../src/model/ambient/own-waypoint.ts';
import { classInfoOf, isOwnClass } from '../../src/waypoint/gateway-objects.ts';

const DIR = path.resolve(import.meta.dirname, '../../manifests/waypoint');

describe('manifests/waypoint', () => {
  it('ships the GatewayClass aeraki-waypoint for services with the PROXY/15088 binding', () => {
    const cls = parse(readFileSync(path.join(DIR, 'gatewayclass.yaml'), 'utf8'));
    assert.equal(cls.apiVersion, 'gateway.networking.k8s.io/v1');
    assert.equal(cls.kind, 'GatewayClass');
    assert.equal(cls.metadata.name, OWN_WAYPOINT_CLASS);
    assert.equal(cls.spec.controllerName, OWN_WAYPOINT_CONTROLLER);
    assert.equal(cls.metadata.labels[WAYPOINT_FOR_LABEL], 'service');
    assert.equal(cls.metadata.annotations[WAYPOINT_INBOUND_BINDING_ANNOTATION], OWN_WAYPOINT_BINDING);
    assert.ok(isOwnClass(classInfoOf(cls)), 'the controller runs this class');
  });

  it('is a component listing the class and the grants', () => {
    const k = parse(readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8'));
    assert.equal(k.kind, 'Component');
    assert.deepEqual(k.resources, ['gatewayclass.yaml', 'rbac.yaml']);
  });
});
