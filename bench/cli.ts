// CLI start-up benchmark: wall time of the compiled CLI (`node bin/aeraki.js`, after `npm run build`) for
// `version` and `render -f examples/`, as ratios to a bare `node -e 0` measured in the same rounds (each round
// runs the three once, in turn; medians over the rounds). Targets: version <= 4x a bare start, render of the
// examples <= 6x. CLI_ROUNDS sets the number of rounds (odd, 3 to 101; 15 by default). Then `render` of 10,000
// services against a bare js-yaml parse of them (cli-render.ts; target <= 4x).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchCliRender } from './cli-render.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const CLI = path.join(repoRoot, 'bin/aeraki.js');

const COMMANDS: Record<string, readonly string[]> = {
  bare: ['-e', '0'],
  version: [CLI, 'version'],
  render: [CLI, 'render', '-f', 'examples/'],
};

function rounds(): number {
  const n = Number(process.env['CLI_ROUNDS'] ?? '15');
  if (!Number.isInteger(n) || n < 3 || n > 101 || n % 2 === 0) {
    throw new Error(`CLI_ROUNDS must be an odd whole number from 3 to 101, got ${process.env['CLI_ROUNDS']}`);
  }
  return n;
}

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
}

/** Wall time of one run, in ms; a failed run stops the benchmark. */
function wallMs(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  return ms;
}

export function benchCli(): Promise<Record<string, unknown>> {
  const build = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const n = rounds();
  const samples: Record<string, number[]> = { bare: [], version: [], render: [] };
  for (const args of Object.values(COMMANDS)) wallMs(args); // warm the file cache
  for (let i = 0; i < n; i++) {
    for (const [name, args] of Object.entries(COMMANDS)) samples[name]!.push(wallMs(args));
  }
  const bareMs = median(samples['bare']!);
  const versionMs = median(samples['version']!);
  const renderMs = median(samples['render']!);
  const round = (x: number) => Math.round(x * 100) / 100;
  const result = {
    rounds: n,
    bareMs: round(bareMs),
    versionMs: round(versionMs),
    renderMs: round(renderMs),
    versionOverBare: round(versionMs / bareMs),
    renderOverBare: round(renderMs / bareMs),
    targets: { versionOverBare: 4, renderOverBare: 6 },
  };
  console.log(
    `cli: node -e 0 ${result.bareMs} ms; version ${result.versionMs} ms (${result.versionOverBare}x); ` +
      `render -f examples/ ${result.renderMs} ms (${result.renderOverBare}x); medians of ${n} rounds`,
  );
  return Promise.resolve({ ...result, render10k: benchCliRender() });
}
