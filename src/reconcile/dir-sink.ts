/**
 * The directory adapter of the sink port: one YAML file per managed object,
 * `<dir>/<namespace>/<kind lower-case>-<name>.yaml`, with the same full-state semantics as the Kubernetes
 * adapter. The resourceVersion of a file is the SHA-256 of its bytes, so an update whose file changed since it
 * was listed fails with a (transient) conflict. Writes are atomic (temporary file + rename).
 * The sink also knows the RDS routes each EnvoyFilter it listed or wrote names (model/unserved-routes.ts), from its
 * last list and the writes since.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import type { OutputObject } from '../model/objects.ts';
import { sha256Hex } from '../util/json.ts';
import type { ExistingObject, ManagedKind } from './diff.ts';
import { updateBody, toExisting } from '../kit/kube/bodies.ts';
import { SinkError } from '../kit/write.ts';
import type { EnvoyFilterSink } from './sink.ts';
import { rdsRouteNamesOf, type ManagedRoutes } from '../model/unserved-routes.ts';

const KINDS: ReadonlySet<string> = new Set<ManagedKind>(['EnvoyFilter', 'VirtualService']);

export function objectFile(dir: string, kind: string, namespace: string, name: string): string {
  return path.join(dir, namespace, `${kind.toLowerCase()}-${name}.yaml`);
}

function ioError(op: string, err: unknown): SinkError {
  return new SinkError(`${op}: ${err instanceof Error ? err.message : String(err)}`, {
    transient: true,
    cause: err,
  });
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function atomicWrite(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, file);
}

interface Meta {
  readonly namespace: string;
  readonly name: string;
}

function render(obj: unknown): string {
  return toYaml(obj, { sortMapEntries: true, lineWidth: 0 });
}

export function createDirSink(dir: string): EnvoyFilterSink & ManagedRoutes {
  const fileOf = (kind: string, namespace: string, name: string) => objectFile(dir, kind, namespace, name);
  /** EnvoyFilter `namespace/name` → the RDS routes it names (none: absent); undefined before the first list. */
  let routes: Map<string, readonly string[]> | undefined;
  const noteRoutes = (
    into: Map<string, readonly string[]> | undefined,
    kind: string,
    md: Meta,
    spec: unknown,
  ) => {
    if (!into || kind !== 'EnvoyFilter') return;
    const names = rdsRouteNamesOf(spec);
    const key = `${md.namespace}/${md.name}`;
    if (names.length > 0) into.set(key, names);
    else into.delete(key);
  };

  return {
    name: 'directory',
    rdsRoutes: () => routes,
    async list() {
      const out: ExistingObject[] = [];
      const listed = new Map<string, readonly string[]>();
      let namespaces: string[];
      try {
        await mkdir(dir, { recursive: true });
        namespaces = (await readdir(dir, { withFileTypes: true }))
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
      } catch (err) {
        throw ioError(`list ${dir}`, err);
      }
      for (const ns of namespaces.sort()) {
        const files = (await readdir(path.join(dir, ns))).filter((f) => f.endsWith('.yaml')).sort();
        for (const f of files) {
          const text = await readIfExists(path.join(dir, ns, f));
          if (text === undefined) continue;
          let doc: unknown;
          try {
            doc = parseYaml(text);
          } catch {
            continue; // not ours to judge; a broken file is overwritten if desired
          }
          const kind = (doc as { kind?: unknown } | null)?.kind;
          if (typeof kind !== 'string' || !KINDS.has(kind)) continue;
          const e = toExisting(kind as ManagedKind, doc);
          if (!e || e.labels[MANAGER_LABEL] !== MANAGER_VALUE) continue;
          if (fileOf(e.kind, e.namespace, e.name) !== path.join(dir, ns, f)) continue;
          out.push({ ...e, resourceVersion: sha256Hex(text) });
          noteRoutes(listed, e.kind, e, (doc as { spec?: unknown }).spec);
        }
      }
      routes = listed;
      return out;
    },
    async create(obj: OutputObject) {
      const file = fileOf(obj.kind, obj.metadata.namespace, obj.metadata.name);
      try {
        if ((await readIfExists(file)) !== undefined) {
          throw new SinkError(`create ${file}: already exists (not managed by Aeraki)`, {
            transient: false,
            code: 409,
            reason: 'AlreadyExists',
          });
        }
        await atomicWrite(file, render(obj));
        noteRoutes(routes, obj.kind, obj.metadata, obj.spec);
      } catch (err) {
        throw err instanceof SinkError ? err : ioError(`create ${file}`, err);
      }
    },
    async update(obj: OutputObject, existing: ExistingObject) {
      const file = fileOf(obj.kind, obj.metadata.namespace, obj.metadata.name);
      try {
        const current = await readIfExists(file);
        if (current === undefined || sha256Hex(current) !== existing.resourceVersion) {
          throw new SinkError(`update ${file}: changed since listed`, {
            transient: true,
            code: 409,
            reason: 'Conflict',
          });
        }
        const body = updateBody(obj, existing);
        const md = body['metadata'] as Record<string, unknown>;
        delete md['resourceVersion'];
        await atomicWrite(file, render(body));
        noteRoutes(routes, obj.kind, obj.metadata, obj.spec);
      } catch (err) {
        throw err instanceof SinkError ? err : ioError(`update ${file}`, err);
      }
    },
    async delete(existing: ExistingObject) {
      const file = fileOf(existing.kind, existing.namespace, existing.name);
      try {
        await rm(file, { force: true });
        if (existing.kind === 'EnvoyFilter') routes?.delete(`${existing.namespace}/${existing.name}`);
      } catch (err) {
        throw ioError(`delete ${file}`, err);
      }
    },
  };
}
