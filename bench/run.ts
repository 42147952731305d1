// `npm run bench`: every benchmark in one process (never part of npm test). Pass names to run a subset:
// `npm run bench -- generate rds` (`cli`: start-up of the compiled CLI; `soak`: only when named). Figures are medians and ratios; the
// machines are shared and noisy. Each benchmark has BENCH_TIMEOUT_MINUTES (bench/bounded.ts): one that fails is
// reported and the run goes on; one that stalls is reported and the run ends there (its work is still running),
// with the summary of what finished and exit code 1. A benchmark that leaves servers, sockets, timers or child
// processes open is named with what it left.
import { leftBehind, openResources, runBounded, timeLimitMinutes } from './bounded.ts';
import { benchCli } from './cli.ts';
import { benchGenerate } from './generate.ts';
import { benchMcp } from './mcp.ts';
import { benchProxyStatus } from './proxy-status.ts';
import { benchRds } from './rds.ts';
import { benchRdsAbuse } from './rds-abuse.ts';
import { benchReconcile } from './reconcile.ts';
import { benchRegistry } from './registry.ts';
import { benchRegistryBridge } from './registry-bridge.ts';
import { benchRegistryWatch } from './registry-watch.ts';
import { benchSoak } from './soak.ts';
import { benchStatus } from './status.ts';
import { benchWaypoint } from './waypoint.ts';

const benches: Record<string, () => Promise<Record<string, unknown>>> = {
  generate: benchGenerate,
  reconcile: benchReconcile,
  mcp: benchMcp,
  rds: benchRds,
  'rds-abuse': benchRdsAbuse,
  'proxy-status': benchProxyStatus,
  cli: benchCli,
  registry: benchRegistry,
  'registry-bridge': benchRegistryBridge,
  'registry-watch': benchRegistryWatch,
  soak: benchSoak,
  waypoint: benchWaypoint,
  status: benchStatus,
};

/** Run only when named: `soak` takes SOAK_MINUTES (10 by default). */
const onlyWhenNamed = new Set(['soak']);
const selected = process.argv.slice(2);
const unknown = selected.filter((s) => !(s in benches));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}
const results: Record<string, unknown> = {};
let failed = false;
const baseline = openResources();
for (const [name, run] of Object.entries(benches)) {
  if (selected.length > 0 ? !selected.includes(name) : onlyWhenNamed.has(name)) continue;
  console.log(`# bench ${name}`);
  const started = performance.now();
  const outcome = await runBounded(name, run, timeLimitMinutes(name, process.env));
  const seconds = Math.round((performance.now() - started) / 1000);
  if (!outcome.ok) {
    failed = true;
    console.error(`# bench ${outcome.message}`);
    results[name] = { failed: outcome.message.split('\n')[0], seconds };
    if (outcome.timedOut) break;
  } else {
    results[name] = outcome.figures;
  }
  const left = await leftBehind(baseline, 10);
  if (Object.keys(left).length > 0) {
    console.error(`# bench ${name} left open after 10 s: ${JSON.stringify(left)}`);
  }
  console.log(`# bench ${name}: ${seconds} s`);
}
console.log('# summary');
console.log(JSON.stringify(results, null, 2));
process.exit(failed ? 1 : 0);
