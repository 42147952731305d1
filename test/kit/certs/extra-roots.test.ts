import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { CertificateMaterial } from '../../../src/kit/certs/cert-material.ts';
import { ExtraRootsProvider } from '../../../src/kit/certs/extra-roots.ts';

const MESH = Buffer.from('-----MESH ROOT-----\n');
const OWN = Buffer.from('-----OWN CA-----\n');

describe('ExtraRootsProvider', () => {
  it('serves the inner root followed by the extra roots, and follows changes of either', async () => {
    const inner = new CertificateMaterial();
    inner.setRoot(MESH);
    inner.setIdentity({ cert: Buffer.from('cert'), key: Buffer.from('key') });
    const p = new ExtraRootsProvider(inner);
    let baseChanges = 0;
    p.onBaseRootChange = () => baseChanges++;
    const roots: string[] = [];
    const ids: string[] = [];
    p.addCaCertificateListener((u) => roots.push(u?.caCertificate.toString() ?? ''));
    p.addIdentityCertificateListener((u) => ids.push(u?.certificate.toString() ?? ''));
    await tick();
    await tick();
    assert.equal(roots.at(-1), MESH.toString());
    assert.equal(ids.at(-1), 'cert');
    p.setExtraRoots(OWN);
    assert.equal(roots.at(-1), MESH.toString() + OWN.toString());
    const before = roots.length;
    p.setExtraRoots(Buffer.from(OWN));
    assert.equal(roots.length, before, 'the same extra roots again change nothing');
    inner.setRoot(Buffer.from('-----MESH ROOT 2-----'));
    assert.equal(roots.at(-1), `-----MESH ROOT 2-----\n${OWN.toString()}`);
    p.setExtraRoots(undefined);
    assert.equal(roots.at(-1), '-----MESH ROOT 2-----');
    assert.equal(baseChanges, 2, 'the first root heard, then the new one; extra roots are not the base');
    assert.equal(p.baseRoot?.toString(), '-----MESH ROOT 2-----');
  });

  it('listens to the inner provider only while it has listeners of its own', async () => {
    const inner = new CertificateMaterial();
    inner.setRoot(MESH);
    const p = new ExtraRootsProvider(inner);
    const listener = () => {};
    p.addCaCertificateListener(listener);
    await tick();
    inner.setRoot(OWN);
    assert.equal(p.currentRoot?.toString(), OWN.toString());
    p.removeCaCertificateListener(listener);
    inner.setRoot(MESH);
    assert.equal(p.currentRoot?.toString(), OWN.toString(), 'no longer listening');
  });
});
