/**
 * RE2 syntax check for regexes that Envoy compiles with google_re2 (MetaProtocol attribute `safeRegexMatch`).
 * JavaScript's RegExp accepts a different language (lookarounds, backreferences) and rejects some RE2 syntax, so
 * the check uses re2js, a port of RE2: https://github.com/google/re2/wiki/Syntax
 */
import { RE2JS } from 're2js';
import { Verdicts } from './verdicts.ts';

/**
 * Verdicts already reached, by regex: compiling is the dearest validation step, and the same regexes come back on
 * every pass (verdicts.ts).
 */
const verdicts = new Verdicts(compileProblem, 10_000);

/** Why `regex` is not valid RE2 (the engine's own message), or undefined when it compiles. */
export function re2Problem(regex: string): string | undefined {
  return verdicts.problem(regex);
}

function compileProblem(regex: string): string | undefined {
  try {
    RE2JS.compile(regex);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
