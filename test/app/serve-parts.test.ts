import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Lifecycle } from '../../src/kit/lifecycle.ts';
import type { Reconciler } from '../../src/reconcile/reconciler.ts';
import type { KubeOutput } from '../../src/app/kube-output.ts';
import type { Registries } from '../../src/registry/registries.ts';
import { writersPart } from '../../src/app/serve-parts.ts';
import { silentLogger } from '../../src/util/logger.ts';

/** Fakes of the three writers recording their calls; `registriesFail` makes the registries' start throw. */
function writers(events: string[], registriesFail = false) {
  const step = (event: string) => (): Promise<void> => {
    events.push(event);
    return Promise.resolve();
  };
  const reconciler = {
    start: () => void events.push('reconciler start'),
    stop: step('reconciler stop'),
  } as unknown as Reconciler;
  const registries = {
    start: () => {
      events.push('registries start');
      return registriesFail ? Promise.reject(new Error('EADDRINUSE')) : Promise.resolve();
    },
    stop: step('registries stop'),
  } as unknown as Registries;
  const kubeOut = {
    start: () => void events.push('kube start'),
    stopWriters: step('kube stopWriters (lease released)'),
    stopWatches: step('kube stopWatches'),
  } as unknown as KubeOutput;
  return writersPart(reconciler, registries, kubeOut);
}

describe('serve parts', () => {
  it('SIGTERM order: readyz fails, writing stops, the lease is released, RDS streams end, then the watches', async () => {
    const events: string[] = [];
    const life = new Lifecycle(silentLogger);
    // As startServe orders them: RDS binds first, then the writers start, readiness is last.
    await life.start({ name: 'rds', drain: () => void events.push('rds stop (streams end)') });
    await life.start(writers(events));
    await life.start({ name: 'readiness', drain: () => void events.push('readyz 503') });
    events.length = 0;
    await life.stop();
    assert.deepEqual(events, [
      'readyz 503',
      'reconciler stop',
      'registries stop',
      'kube stopWriters (lease released)',
      'rds stop (streams end)',
      'kube stopWatches',
    ]);
  });

  it('writers: a registries start failure undoes the writers and names the flag', async () => {
    const events: string[] = [];
    const life = new Lifecycle(silentLogger);
    await assert.rejects(
      life.start(writers(events, true)),
      /cannot start the registries: EADDRINUSE \(a taken --mcp-server-address\?\)/,
    );
    assert.deepEqual(events, [
      'reconciler start',
      'kube start',
      'registries start',
      'reconciler stop',
      'registries stop',
      'kube stopWriters (lease released)',
      'kube stopWatches',
    ]);
    assert.deepEqual(life.started(), []);
  });
});
