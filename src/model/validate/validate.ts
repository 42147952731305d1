/**
 * The one validation entry point, shared by `aeraki validate` (files, offline), `aeraki render` (whose issues it
 * reproduces, each issue with the severity admission gives it) and the validating webhook (one object, against
 * an empty or a given store):
 *
 * 1. every object is parsed as every source parses it (parse/objects.ts: wrong types, missing fields, and the
 *    rules of each kind, such as validate/metarouter.ts);
 * 2. the generation-time checks run over the parsed objects. They need the store and the generators, which this
 *    layer may not import, so the composition root passes them in as `options.check` (src/app/validate.ts).
 *
 * With `options.existing` (the webhook's live store), the checked objects replace their namespace/name in it and
 * only the generation issues the checked objects add are reported: a problem that was already there is not
 * theirs. Pure: no I/O; never throws on input.
 */
import type { ParseOptions } from '../parse/parse.ts';
import { objectIdentity, parseRawObjects, type ParsedObjects } from '../parse/objects.ts';
import { asAdmission, dedupeIssues, issueLine, type ConfigIssue } from '../result.ts';

/** The generation-time checks over a complete set of objects: exactly the issues `aeraki render` adds. */
export type GenerationCheck = (objects: ParsedObjects) => readonly ConfigIssue[];

export interface ValidateOptions {
  readonly rootNamespace: string;
  /** How objects are read (cluster domain); default cluster.local. */
  readonly parseOptions?: ParseOptions;
  /** Issues found before parsing (unreadable files, YAML syntax errors); reported first. */
  readonly issues?: readonly ConfigIssue[];
  /** Default: none (parsing only). */
  readonly check?: GenerationCheck;
  /** The objects already in effect; the checked ones are laid over them (see the module comment). */
  readonly existing?: ParsedObjects;
}

export interface ValidateResult {
  /**
   * Parse issues, then generation issues; without repeats; each with the severity admission gives it (result.ts
   * asAdmission), so a rule of admission hygiene, a warning in `render`, is an error here. Any error means invalid.
   */
  readonly issues: ConfigIssue[];
}

export function validateObjects(raws: readonly unknown[], options: ValidateOptions): ValidateResult {
  const issues: ConfigIssue[] = [...(options.issues ?? [])];
  const parsed = parseRawObjects(raws, options.rootNamespace, issues, options.parseOptions);
  if (options.check) {
    if (options.existing) issues.push(...addedIssues(options.check, options.existing, parsed));
    else issues.push(...options.check(parsed));
  }
  return { issues: asAdmission(dedupeIssues(issues)) };
}

/** The generation issues of `existing` with `checked` laid over it that `existing` alone does not have. */
function addedIssues(
  check: GenerationCheck,
  existing: ParsedObjects,
  checked: ParsedObjects,
): readonly ConfigIssue[] {
  const before = new Set(check(existing).map(issueLine));
  return check(overlay(existing, checked)).filter((i) => !before.has(issueLine(i)));
}

/** `base` with every object of `top` (valid or rejected) replacing the one of the same kind/namespace/name. */
export function overlay(base: ParsedObjects, top: ParsedObjects): ParsedObjects {
  const replaced = new Set([
    ...top.objects.map((o) => objectIdentity(o.kind, o.metadata.namespace, o.metadata.name)),
    ...top.rejected.map((r) => objectIdentity(r.ref.kind, r.ref.namespace, r.ref.name)),
  ]);
  const kept = (key: string): boolean => !replaced.has(key);
  return {
    objects: [
      ...base.objects.filter((o) => kept(objectIdentity(o.kind, o.metadata.namespace, o.metadata.name))),
      ...top.objects,
    ],
    rejected: [
      ...base.rejected.filter((r) => kept(objectIdentity(r.ref.kind, r.ref.namespace, r.ref.name))),
      ...top.rejected,
    ],
    issues: [],
    mesh: base.mesh,
  };
}
