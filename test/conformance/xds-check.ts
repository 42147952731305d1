// What the waypoint's xDS resources are checked against in the tests: the Envoy API of the pinned release
// (../shared/protos-2026), strictly as proto3 JSON (real-protos.ts Proto3JsonChecker, every Any and TypedStruct
// parsed by its type) and against the protos' protoc-gen-validate rules (pgv-rules.ts PgvChecker: `(validate.rules)`,
// `(validate.required)`, what Envoy's MessageUtil::validate refuses). This is the one entry point tests call.
import path from 'node:path';
import { repoRoot } from '../app/fixture-cases.ts';
import { PgvChecker } from './pgv-rules.ts';
import { formatProblem, Proto3JsonChecker, RealProtos } from './real-protos.ts';

export const PROTOS_2026_DIR = path.resolve(repoRoot, '../shared/protos-2026');

let checkers: { strict: Proto3JsonChecker; rules: PgvChecker } | undefined;

/** The message name of a type URL (`type.googleapis.com/<name>`). */
export function messageOfTypeUrl(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/**
 * Every problem of `json` read as the resource of `typeUrl` (proto3 JSON), formatted `<path>: <message>`: first
 * what does not parse strictly, then every broken validation rule (its message ends `((validate.rules).<rule>)`,
 * or `(validate.required)` for a oneof).
 */
export function xdsProblems(typeUrl: string, json: unknown, root = '$'): string[] {
  if (checkers === undefined) {
    const protos = new RealProtos(PROTOS_2026_DIR);
    checkers = { strict: new Proto3JsonChecker(protos), rules: new PgvChecker(protos) };
  }
  const name = messageOfTypeUrl(typeUrl);
  const problems = [...checkers.strict.check(name, json, root), ...checkers.rules.check(name, json, root)];
  return problems.map(formatProblem);
}
