/**
 * A bounded memo of a pure check over strings: hosts, label keys and values, regexes. Each MCP answer and each
 * relist parses every object again, and a mesh names the same host in its ServiceEntry, DestinationRule and
 * MetaRouter, so the same strings come back on every pass; a string's verdict never changes.
 */

/** What the memo holds for a string with no problem (a problem is never an empty message). */
const VALID = '';

/** The verdicts of `check`, at most `max` strings: all are dropped when it is full (a new pass refills it). */
export class Verdicts {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly check: (s: string) => string | undefined,
    private readonly max: number,
  ) {}

  /** check(s): why `s` is not valid, or undefined when it is. */
  problem(s: string): string | undefined {
    const known = this.known.get(s);
    if (known !== undefined) return known === VALID ? undefined : known;
    const problem = this.check(s);
    if (this.known.size >= this.max) this.known.clear();
    this.known.set(s, problem ?? VALID);
    return problem;
  }
}

/**
 * The verdict of `check` on the string it saw last: the rules of one object check its host again and again (the
 * MetaRouter's host, then each destination's), each time in another copy of the string, and comparing two copies
 * costs less than checking one again.
 */
export class LastVerdict {
  private last: string | undefined;
  private lastProblem: string | undefined;

  constructor(private readonly check: (s: string) => string | undefined) {}

  /** check(s): why `s` is not valid, or undefined when it is. */
  problem(s: string): string | undefined {
    if (s !== this.last) {
      this.lastProblem = this.check(s);
      this.last = s;
    }
    return this.lastProblem;
  }
}
