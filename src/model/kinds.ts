/**
 * What a plugin declares about the kinds it reads, beyond its generator: the kinds themselves (KindSpec) and the
 * lookup indexes its context resolution uses (KindIndex). The ConfigStore builds an index the first time it is asked for it (one pass over the objects of
 * its kind) and maintains it on every change afterwards, so every lookup through it is O(1) in the number of
 * objects; incremental generation files a lookup under the index's name and key (kit/incremental/dependencies.ts),
 * so a change of an object under that key regenerates what read it.
 */
import type { ConfigKind, ConfigObject } from './objects.ts';
import type { Fields, Raw } from './parse/fields.ts';
import type { ConfigIssue, ObjectRef } from './result.ts';
import type { SecretRef, SecretRefsOf } from './secret-refs.ts';
import type { ObjectSettings, SettingsContext } from './settings.ts';

export type ObjectOfKind<K extends ConfigKind> = Extract<ConfigObject, { kind: K }>;

/**
 * One index over the objects of `kind`: each object filed under every distinct key `keysOf` gives (none: not in
 * the index). Buckets are in namespace/name order. `keysOf` must be a pure function of the object; `name` is
 * unique among all indexes (it names the index in dependency keys).
 */
export interface KindIndex<K extends ConfigKind = ConfigKind> {
  readonly name: string;
  readonly kind: K;
  keysOf(o: ObjectOfKind<K>): readonly string[];
}

/** Declares an index (the identity function, typed: `keysOf` gets the objects of `kind`). */
export function kindIndex<K extends ConfigKind>(index: KindIndex<K>): KindIndex<K> {
  return Object.freeze(index);
}

/**
 * A kind a plugin reads (DESIGN: plugins own their kinds): where the API server serves it, how it is read and
 * checked, and the Secrets its objects name. The store, the parsers, the Kubernetes sources and the webhook learn
 * the plugins' kinds from the plugin list (plugins/registry.ts), never by name.
 */
export interface KindSpec<K extends ConfigKind = ConfigKind> {
  readonly kind: K;
  /** API group and the one version read (`apiVersion` is `<group>/<version>`); its CRD is in manifests/. */
  readonly group: string;
  readonly version: string;
  /** The resource name (`metarouters`), as RBAC and the watch path name it. */
  readonly plural: string;
  /** False for a cluster-scoped kind (its objects have namespace ''). */
  readonly namespaced: boolean;
  /**
   * Reads the spec (strictly, for Aeraki's kinds: model/parse/strict.ts): issues go into `f`, an error rejects the
   * object. Includes the kind's rules (warnings) when the spec has no error.
   */
  readSpec(f: Fields, spec: Raw): ObjectOfKind<K>['spec'];
  /** The rules of the kind over a valid object, warnings only, in field order (model/validate/rules.ts). */
  ruleIssues?(o: ObjectOfKind<K>, ref: ObjectRef): readonly ConfigIssue[];
  /** The Secrets an object names (model/secret-refs.ts), in field order; absent: it names none. */
  secretRefs?(o: ObjectOfKind<K>): readonly SecretRef[];
  /**
   * The hosts (as written) whose generated output an object of the kind configures. While the object is rejected
   * because of a Secret it names and has no valid version, these hosts are held (ConfigView.isHostHeld): their
   * output is kept rather than rendered without the object (never a filter without the auth it asks for).
   */
  hostsOf?(o: ObjectOfKind<K>): readonly string[];
  /**
   * The fields of the kind's objects that hold credentials: dotted paths from the object's top
   * (`spec.settings.auth.plain.password`); a list on the way applies to each of its items, and `*` names every key
   * of a map. `/debug/*` shows them as `<redacted>` and the issues at or under them without their text.
   */
  readonly secretFields?: readonly string[];
  /**
   * What an object of the kind sets and which services it applies to, as text for `/debug/config` and the debug
   * page (model/settings.ts). Never a credential: a Secret is named with its key, a value written in the object is
   * only said to be there. Absent: the page shows the kind's objects nowhere.
   */
  describe?(o: ObjectOfKind<K>, ctx: SettingsContext): ObjectSettings;
}

/**
 * Declares a kind: the hooks are checked against the objects of `kind`, and the spec is returned as a KindSpec of
 * any kind, for the plugin list (the hooks are only ever called with objects of their own kind).
 */
export function kindSpec<K extends ConfigKind>(spec: KindSpec<K>): KindSpec {
  const erased: unknown = Object.freeze(spec);
  return erased as KindSpec;
}

/** `<group>/<version>`, an object's apiVersion. */
export function apiVersionOf(spec: Pick<KindSpec, 'group' | 'version'>): string {
  return spec.group === '' ? spec.version : `${spec.group}/${spec.version}`;
}

/** The kinds of `generators`' plugins, in generator order. */
export function kindsOf(
  generators: readonly { readonly kinds?: readonly KindSpec[] }[],
): readonly KindSpec[] {
  return Object.freeze(generators.flatMap((g) => g.kinds ?? []));
}

const NO_REFS: readonly SecretRef[] = Object.freeze([]);

/** The Secret references over `kinds`: the kinds whose objects may name Secrets, and what an object names. */
export function secretRefReader(kinds: readonly KindSpec[]): {
  readonly ownerKinds: readonly string[];
  readonly refsOf: SecretRefsOf;
  /** KindSpec.hostsOf of the object's kind (none for kinds that declare none). */
  readonly hostsOf: (o: ConfigObject) => readonly string[];
} {
  const byKind = new Map<string, NonNullable<KindSpec['secretRefs']>>();
  const hosts = new Map<string, NonNullable<KindSpec['hostsOf']>>();
  for (const k of kinds) {
    if (k.secretRefs) byKind.set(k.kind, k.secretRefs.bind(k));
    if (k.hostsOf) hosts.set(k.kind, k.hostsOf.bind(k));
  }
  return {
    ownerKinds: [...byKind.keys()],
    refsOf: (o) => byKind.get(o.kind)?.(o) ?? NO_REFS,
    hostsOf: (o) => hosts.get(o.kind)?.(o) ?? [],
  };
}
