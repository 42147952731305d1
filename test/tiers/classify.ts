// The test tiers, decided by a check rather than by hand. A suite listed in test/all.test.ts is a unit suite
// unless the suite file, or a test-local module it imports (any relative import that stays under test/, followed
// transitively: test/support, test/fakes, a folder's helpers, sub-suites), imports a module that spawns processes
// or opens sockets (SOCKET_MODULES). Modules under src/ are not followed: many import node:http2 or grpc-js for a
// server that a unit suite never starts. What reading the imports cannot see (a src/ function that listens) the
// unit entry's guard (test/tiers/guard.ts) refuses at run time.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEST_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Modules whose import marks a suite as spawning a process or opening a socket (server or client).
export const SOCKET_MODULES = [
  'child_process',
  'net',
  'http',
  'https',
  'http2',
  'tls',
  'dgram',
  'worker_threads',
  '@grpc/grpc-js',
  'node-zookeeper-client',
  'etcd3',
  'nacos',
];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

// The modules a file imports or re-exports, static or dynamic; type-only imports (erased) are left out.
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    if (/^\s*import\s+type\s/.test(m[0])) continue;
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

function isSocketModule(spec: string): boolean {
  const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
  return SOCKET_MODULES.includes(bare) || SOCKET_MODULES.some((m) => bare.startsWith(`${m}/`));
}

export interface Verdict {
  suite: string; // relative to test/, as all.test.ts imports it ('./kit/diff.test.ts')
  unit: boolean;
  reason?: string; // the first marker found: 'support/process.ts imports node:child_process'
}

// Classifies one suite file (absolute path); root is the folder whose modules count as test-local.
export function classify(file: string, root = TEST_DIR): Verdict {
  const suite = `./${relative(root, file)}`;
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const text = readFileSync(current, 'utf8');
    const where = relative(root, current);
    for (const spec of specifiers(text)) {
      if (isSocketModule(spec)) return { suite, unit: false, reason: `${where} imports ${spec}` };
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(current), spec);
      if (target.startsWith(`${root}/`) && /\.tsx?$/.test(target)) queue.push(target);
    }
  }
  return { suite, unit: true };
}

// The suites an entry file imports, in order ('./kit/diff.test.ts').
export function entrySuites(entry: string, root = TEST_DIR): string[] {
  return specifiers(readFileSync(resolve(root, entry), 'utf8')).filter((s) => s.endsWith('.test.ts'));
}

// Every suite file reachable from an entry, following suites that import sub-suites ('./a.test.ts' importing
// './a/b.test.ts'), as paths relative to root ('./kit/diff.test.ts').
export function reachableSuites(entry: string, root = TEST_DIR): Set<string> {
  const out = new Set<string>();
  const queue = entrySuites(entry, root).map((s) => resolve(root, s));
  while (queue.length > 0) {
    const file = queue.shift()!;
    const rel = `./${relative(root, file)}`;
    if (out.has(rel)) continue;
    out.add(rel);
    const text = readFileSync(file, 'utf8');
    for (const spec of specifiers(text)) {
      if (spec.startsWith('.') && spec.endsWith('.test.ts')) queue.push(resolve(dirname(file), spec));
    }
  }
  return out;
}
