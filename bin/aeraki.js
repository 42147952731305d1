#!/usr/bin/env node
// Launcher: runs the compiled CLI (dist/, built by `npm ci` or `npm run build`). From the sources, without a
// build: `node --import tsx cmd/aeraki.ts`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cmd/aeraki.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('aeraki: dist/ is missing: run `npm run build` (npm ci runs it)\n');
  process.exit(1);
}
await import(entry.href);
