import type { Generator } from './generator.ts';
import { fail, issue, type ObjectRef, type Result } from './result.ts';

/** `generate()`, a generator's exception (a bug) becoming the issue that replaces its result: the pass goes on. */
export function guarded<T>(ref: ObjectRef, generator: Generator, generate: () => Result<T>): Result<T> {
  try {
    return generate();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return fail([issue(ref, '', `internal error in the ${generator.name} generator: ${message}`)]);
  }
}
