// `npm run bench`: every benchmark in one process (never part of npm test). Pass names to run a subset:
// `npm run bench -- generate rds`.
import { benchGenerate } from './generate.ts';

const benches: Record<string, () => Promise<Record<string, unknown>>> = {
  generate: benchGenerate,
};

const selected = process.argv.slice(2);
for (const [name, run] of Object.entries(benches)) {
  if (selected.length > 0 && !selected.includes(name)) continue;
  console.log(`# bench ${name}`);
  await run();
}
