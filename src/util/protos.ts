import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

/** The include directories of the Envoy, xDS, googleapis and PGV protos shipped in `@grpc/grpc-js-xds` (deps/). */
export function envoyProtoDirs(): string[] {
  const deps = path.join(path.dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  return ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => path.join(deps, d));
}

/**
 * Loads `files` by reflection into a new protobufjs Root, resolving imports against `includeDirs` (first match
 * wins); protobufjs' bundled well-known types serve `google/protobuf/*`. Throws only if the installation is broken.
 */
export function loadProtoRoot(files: readonly string[], includeDirs: readonly string[]): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    if (target in protobuf.common) return target;
    if (target === 'google/protobuf/descriptor.proto') {
      return require.resolve('protobufjs/google/protobuf/descriptor.proto');
    }
    if (path.isAbsolute(target) && existsSync(target)) return target;
    for (const dir of includeDirs) {
      const full = path.join(dir, target);
      if (existsSync(full)) return full;
    }
    return protobuf.util.path.resolve(origin, target);
  };
  root.loadSync([...files]);
  root.resolveAll();
  return root;
}

/**
 * The repository's own `protos/` directory (hand-written Istio protos), found by walking up from this module to
 * the first `protos/` holding `marker` (works from src/ and from the compiled dist/).
 */
export function projectProtosDir(marker = 'istio/mcp/v1alpha1/resource.proto'): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'protos');
    if (existsSync(path.join(candidate, marker))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`protos/${marker} not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
