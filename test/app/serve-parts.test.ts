import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Runtime, type RuntimePart } from '../../src/kit/runtime.ts';
import type { Registries } from '../../src/registry/registries.ts';
import { registriesPart } from '../../src/app/serve-parts.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeElector } from '../support/fake-elector.ts';

/** Fake registries recording their calls; `fail` makes their start throw. */
function registries(events: string[], fail = false): Registries {
  return {
    start: () => {
      events.push('registries start');
      return fail ? Promise.reject(new Error('EADDRINUSE')) : Promise.resolve();
    },
    stop: () => {
      events.push('registries stop');
      return Promise.resolve();
    },
  } as unknown as Registries;
}

/** A part recording its drain (`<name> drain`) and stop (`<name> stop`). */
function part(name: string, events: string[], needLeader = false): RuntimePart {
  return {
    name,
    needLeader,
    start: () => void events.push(`${name} start`),
    drain: () => void events.push(`${name} drain`),
    stop: () => void events.push(`${name} stop`),
  };
}

describe('serve parts', () => {
  it('SIGTERM order: the writers stop, the lease is released, the registries and RDS streams end, then the watches', async () => {
    const events: string[] = [];
    const elector = new FakeElector(events);
    const runtime = new Runtime({ logger: silentLogger, elector });
    // As startServe orders them: RDS binds first, then the watches, the registries and the writers, readiness last.
    await runtime.start({ name: 'rds', drain: () => void events.push('rds stop (streams end)') });
    await runtime.start(
      part('reconciler', events, true),
      { name: 'drift-watch', stop: () => void events.push('watch stop') },
      registriesPart(registries(events)),
      part('bootstrap', events, true),
    );
    await runtime.start({ name: 'readiness', drain: () => void events.push('readyz 503') });
    elector.elect();
    await runtime.settled();
    assert.deepEqual(runtime.leading(), ['reconciler', 'bootstrap']);
    events.length = 0;
    await runtime.stop();
    assert.deepEqual(events, [
      'bootstrap drain',
      'reconciler drain',
      'bootstrap stop',
      'reconciler stop',
      'stop', // the elector: the lease is released
      'lost',
      'readyz 503',
      'registries stop',
      'rds stop (streams end)',
      'watch stop',
    ]);
  });

  it('registries: a start failure stops them and names the flag', async () => {
    const events: string[] = [];
    const runtime = new Runtime({ logger: silentLogger });
    await assert.rejects(
      runtime.start(registriesPart(registries(events, true))),
      /cannot start the registries: EADDRINUSE \(a taken --mcp-server-address\?\)/,
    );
    assert.deepEqual(events, ['registries start', 'registries stop']);
    assert.deepEqual(runtime.started(), []);
  });
});
