// The memory tests' child RDS server reports its own peak resident size, whatever its parent's: Linux carries
// ru_maxrss across execve, so `process.resourceUsage().maxRSS` of a forked child starts at the RSS its parent had
// at the fork (a full test run of 600 MB made the in-flight test's server read 560 MB against a 512 MB limit).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeCertDir } from '../fakes/test-ca.ts';
import { MemoryServer } from '../support/rds-memory-child.ts';

const MB = 1 << 20;

describe('the memory tests child server', () => {
  it('reports a peak of its own, not its parent resident size', { timeout: 60_000 }, async () => {
    // A parent far larger than the server: 400 MB resident (every page written).
    const ballast = Buffer.alloc(400 * MB, 1);
    const parentRss = process.memoryUsage().rss;
    const certs = writeCertDir();
    const server = new MemoryServer();
    try {
      await server.run(certs);
      const state = await server.state(false);
      assert.ok(parentRss > 400 * MB, `parent RSS ${Math.round(parentRss / MB)} MB`);
      assert.ok(state.maxRss >= state.rss, 'the peak is at least the current size');
      assert.ok(
        state.maxRss < parentRss - 200 * MB,
        `server peak ${Math.round(state.maxRss / MB)} MB, parent ${Math.round(parentRss / MB)} MB`,
      );
    } finally {
      server.stop();
      certs.remove();
      ballast.fill(0, 0, 1);
    }
  });
});
