import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where each top-level message of the runtime's Envoy, xDS and Google protos is declared (`<package>.<Message>` ->
 * the file's path relative to its include directory), so that a typed_config whose type the preloaded files do not
 * declare (a dubbo_proxy or thrift_proxy router, a thrift filter, ...) is loaded when first met. Built once, on
 * first use, by reading the package and top-level declarations of every `.proto` file under the directories.
 */
export class ProtoIndex {
  private files: Map<string, string> | undefined;

  constructor(private readonly dirs: readonly string[]) {}

  /** The file declaring the top-level message `name` (no leading dot), if any. */
  fileOf(name: string): string | undefined {
    this.files ??= this.build();
    return this.files.get(name);
  }

  private build(): Map<string, string> {
    const out = new Map<string, string>();
    for (const dir of this.dirs) {
      let entries: string[];
      try {
        entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
      } catch {
        continue;
      }
      for (const file of entries) {
        if (!file.endsWith('.proto')) continue;
        const text = readFileSync(path.join(dir, file), 'utf8');
        const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
        const prefix = pkg === undefined ? '' : `${pkg}.`;
        for (const m of text.matchAll(/^message\s+(\w+)/gm)) {
          const name = `${prefix}${m[1]}`;
          // First include directory wins, as loadProtoRoot resolves imports.
          if (!out.has(name)) out.set(name, file.split(path.sep).join('/'));
        }
      }
    }
    return out;
  }
}
