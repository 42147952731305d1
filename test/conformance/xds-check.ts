// What the waypoint's xDS resources are checked against in the tests: the Envoy API of the pinned release
// (../shared/protos-2026), strictly as proto3 JSON (real-protos.ts Proto3JsonChecker, every Any and TypedStruct
// parsed by its type). Validation rules (protoc-gen-validate `(validate.rules)`) are checked by pgv-rules.ts once
// it exists; this is the one entry point tests call.
import path from 'node:path';
import { repoRoot } from '../app/fixture-cases.ts';
import { formatProblem, Proto3JsonChecker, RealProtos } from './real-protos.ts';

export const PROTOS_2026_DIR = path.resolve(repoRoot, '../shared/protos-2026');

let checker: Proto3JsonChecker | undefined;

/** The message name of a type URL (`type.googleapis.com/<name>`). */
export function messageOfTypeUrl(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** Every problem of `json` read as the resource of `typeUrl` (proto3 JSON), formatted `<path>: <message>`. */
export function xdsProblems(typeUrl: string, json: unknown, root = '$'): string[] {
  checker ??= new Proto3JsonChecker(new RealProtos(PROTOS_2026_DIR));
  return checker.check(messageOfTypeUrl(typeUrl), json, root).map(formatProblem);
}
