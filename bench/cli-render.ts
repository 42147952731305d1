// `render` of a large input against the bare parse of it: the compiled CLI's `render -f` of 10,000 MetaProtocol
// services (bench/synthetic.ts: 20,000 documents, about 10.5 MB in one file) as a ratio to a bare js-yaml `loadAll`
// of the same file, like for like in a fresh node process (start, js-yaml loaded, the file read and parsed), and,
// for reference, in this process with a warm parser (medians of CLI_RENDER_ROUNDS rounds, 5 by default, each
// running every measurement once). Target: render <= 4x the bare parse (process to process). Run after
// `npm run build` (bench/cli.ts builds first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import yaml from 'js-yaml';
import { stringify } from 'yaml';
import { syntheticObjects } from './synthetic.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const CLI = path.join(repoRoot, 'bin/aeraki.js');
const SERVICES = 10_000;

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
}

function rounds(): number {
  const n = Number(process.env['CLI_RENDER_ROUNDS'] ?? '5');
  if (!Number.isInteger(n) || n < 1 || n > 51) throw new Error('CLI_RENDER_ROUNDS must be 1 to 51');
  return n;
}

/** The input file's text: every object of `services` services, one YAML document each. */
export function largeInput(services: number): string {
  return syntheticObjects(services)
    .map((o) => stringify(o))
    .join('---\n');
}

function renderMs(file: string, extra: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'render', '-f', file, ...extra], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`render exited ${r.status}: ${String(r.stderr).slice(0, 2000)}`);
  return ms;
}

/** A fresh node process that loads js-yaml and parses `file`, as `render` does first. */
function parseProcessMs(file: string): number {
  const script =
    "const y=require('js-yaml');const t=require('fs').readFileSync(process.argv[1],'utf8');" +
    'if(y.loadAll(t,undefined,{schema:y.CORE_SCHEMA}).length===0)process.exit(1)';
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-e', script, file], { cwd: repoRoot, stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`bare parse exited ${r.status}`);
  return ms;
}

function parseMs(text: string): number {
  const t0 = performance.now();
  const docs = yaml.loadAll(text, undefined, { schema: yaml.CORE_SCHEMA });
  const ms = performance.now() - t0;
  if (docs.length === 0) throw new Error('nothing parsed');
  return ms;
}

export function benchCliRender(): Record<string, unknown> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-bench-render-'));
  try {
    const text = largeInput(SERVICES);
    const file = path.join(dir, 'services.yaml');
    writeFileSync(file, text);
    const documents = text.split('\n---\n').length;
    const n = rounds();
    const samples = {
      render: [] as number[],
      routes: [] as number[],
      parse: [] as number[],
      parseProcess: [] as number[],
    };
    parseMs(text); // warm the parser and the file cache
    for (let i = 0; i < n; i++) {
      samples.parse.push(parseMs(text));
      samples.parseProcess.push(parseProcessMs(file));
      samples.render.push(renderMs(file, []));
      samples.routes.push(renderMs(file, ['--routes']));
    }
    const round = (x: number) => Math.round(x * 100) / 100;
    const parse = median(samples.parseProcess);
    const warmParse = median(samples.parse);
    const render = median(samples.render);
    const routes = median(samples.routes);
    const result = {
      services: SERVICES,
      documents,
      megabytes: round(text.length / 1e6),
      rounds: n,
      bareParseMs: round(parse),
      bareParseInProcessMs: round(warmParse),
      renderMs: round(render),
      renderRoutesMs: round(routes),
      renderOverParse: round(render / parse),
      renderRoutesOverParse: round(routes / parse),
      renderOverInProcessParse: round(render / warmParse),
      target: { renderOverParse: 4 },
    };
    console.log(
      `cli render: ${SERVICES} services (${documents} documents, ${result.megabytes} MB): js-yaml loadAll in a ` +
        `fresh process ${result.bareParseMs} ms (warm, in this process ${result.bareParseInProcessMs} ms); render ` +
        `${result.renderMs} ms (${result.renderOverParse}x, ${result.renderOverInProcessParse}x the warm parse); render --routes ` +
        `${result.renderRoutesMs} ms (${result.renderRoutesOverParse}x); medians of ${n} rounds`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
