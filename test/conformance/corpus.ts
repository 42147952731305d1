// The shared corpus of the conformance and generative suites: every fixture input under ../shared, as raw objects.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import type { ConfigIssue } from '../../src/model/result.ts';

export const FIXTURES_DIR = resolve(import.meta.dirname, '../../../shared/fixtures/render');
/** The peripheral generators' cases (Redis, Kafka, ZooKeeper, Dubbo authorization), read the same way. */
export const PERIPHERY_DIR = resolve(import.meta.dirname, '../../../shared/fixtures/render-periphery');

export interface FixtureInput {
  readonly name: string;
  readonly raws: unknown[];
  readonly args: string[];
}

export function loadCorpus(): FixtureInput[] {
  return [FIXTURES_DIR, PERIPHERY_DIR]
    .filter((folder) => existsSync(folder))
    .flatMap((folder) =>
      readdirSync(folder, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => ({ folder, name: e.name })),
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ folder, name }) => {
      const dir = join(folder, name);
      const text = readFileSync(join(dir, 'input.yaml'), 'utf8');
      const raws: unknown[] = [];
      for (const doc of parseAllDocuments(text)) {
        const value: unknown = doc.toJS();
        if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'List') {
          raws.push(...((value as { items?: unknown[] }).items ?? []));
        } else if (value !== null && value !== undefined) {
          raws.push(value);
        }
      }
      let args: string[] = [];
      try {
        args = readFileSync(join(dir, 'args'), 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        // no args file
      }
      return { name, raws, args };
    });
}

export { deepFreeze } from '../../src/util/json.ts';

/** Every issue names its object (kind, name) and, for config objects, the field. */
export function assertIssueShape(i: ConfigIssue): void {
  assert.ok(i.ref.kind, `issue without kind: ${JSON.stringify(i)}`);
  assert.ok(i.ref.name, `issue without object name: ${JSON.stringify(i)}`);
  assert.ok(i.message, `issue without message: ${JSON.stringify(i)}`);
  if (i.ref.kind !== 'File') assert.ok(i.path, `issue without field path: ${JSON.stringify(i)}`);
}
