/**
 * RE2 syntax check for regexes that Envoy compiles with google_re2 (MetaProtocol attribute `safeRegexMatch`).
 * JavaScript's RegExp accepts a different language (lookarounds, backreferences) and rejects some RE2 syntax, so
 * the check uses re2js, a port of RE2: https://github.com/google/re2/wiki/Syntax
 */
import { RE2JS } from 're2js';

/**
 * Verdicts already reached, by regex. Compiling is the dearest validation step, a regex's verdict never changes,
 * and every MCP answer or relist parses every object again, so the same regexes come back on every pass. Bounded:
 * cleared when it reaches MAX_VERDICTS entries.
 */
const verdicts = new Map<string, string | undefined>();
const MAX_VERDICTS = 10_000;

/** Why `regex` is not valid RE2 (the engine's own message), or undefined when it compiles. */
export function re2Problem(regex: string): string | undefined {
  if (verdicts.has(regex)) return verdicts.get(regex);
  const verdict = compileProblem(regex);
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(regex, verdict);
  return verdict;
}

function compileProblem(regex: string): string | undefined {
  try {
    RE2JS.compile(regex);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
