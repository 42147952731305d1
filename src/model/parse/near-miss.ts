/**
 * Documents that almost name a kind this controller reads and so would be skipped without a word: a known group
 * with a version nobody serves (`metaprotocol.aeraki.io/v1`), a kind that differs from a known one only in case
 * (`Metarouter`), a known kind without `apiVersion`, and, by edit distance (insertions, deletions, substitutions,
 * swaps of neighbours) on the kind and on the API group apart, a misspelt kind (`MetaRoute`, `MetaRouters`: 1 from
 * `MetaRouter`; up to 1 for kinds of 6 letters or fewer, 2 for longer ones) in its group or a group as close, or a
 * misspelt group (`metaprotocl.aeraki.io`: up to 2) of a known kind. Each gives one warning naming the object as
 * written and what was probably meant (`MetaRouter rpc/r: apiVersion: metaprotocol.aeraki.io/v1 is not served; did
 * you mean metaprotocol.aeraki.io/v1alpha1?`); `aeraki validate --strict` fails on it. Any other document (another
 * group, such as the Gateway API's Gateway or a Knative Service, or a kind far from every kind read, such as a
 * ConfigMap or a Deployment) is not a near miss.
 */
import { isPlainObject } from '../../util/json.ts';
import { describe } from './fields.ts';
import { editDistance } from './strict.ts';
import type { KindSpec } from '../kinds.ts';
import { DEFAULT_NAMESPACE, readKinds } from './parse.ts';
import { warning, type ConfigIssue, type ObjectRef } from '../result.ts';

type KnownKind = ReturnType<typeof readKinds>[number];

/** The kinds read, per list of plugin kinds (built once each). */
const known = new Map<readonly KindSpec[] | undefined, readonly KnownKind[]>();

function knownKinds(kinds: readonly KindSpec[] | undefined): readonly KnownKind[] {
  let out = known.get(kinds);
  if (out === undefined) known.set(kinds, (out = readKinds(kinds)));
  return out;
}

/** `networking.istio.io/v1` → `networking.istio.io`; a core version (`v1`) → ''. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function preferred(k: KnownKind): string {
  return k.versions[k.versions.length - 1] ?? '';
}

/**
 * The near-miss warning for a document this controller does not read (the core's kinds and the plugins' `kinds`);
 * undefined when it is none.
 */
export function nearMissIssue(raw: unknown, kinds?: readonly KindSpec[]): ConfigIssue | undefined {
  if (!isPlainObject(raw) || typeof raw['kind'] !== 'string') return undefined;
  const KNOWN = knownKinds(kinds);
  const kind = raw['kind'];
  const apiVersion = raw['apiVersion'];
  const given = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : undefined;
  const exact = KNOWN.find((k) => k.kind === kind);
  if (exact) {
    if (given === undefined) {
      const found =
        apiVersion === undefined || apiVersion === null || apiVersion === ''
          ? 'required field is missing'
          : `expected a string, got ${describe(apiVersion)}`;
      return warning(refOf(raw, exact), 'apiVersion', `${found}; did you mean ${preferred(exact)}?`);
    }
    if (exact.versions.includes(given)) return undefined;
    if (groupOf(given) !== groupOf(preferred(exact))) return misspeltGroup(raw, exact, given);
    return warning(
      refOf(raw, exact),
      'apiVersion',
      `${given} is not served; did you mean ${preferred(exact)}?`,
    );
  }
  const folded = KNOWN.find((k) => k.kind.toLowerCase() === kind.toLowerCase());
  if (folded) {
    if (given !== undefined && groupOf(given) !== groupOf(preferred(folded))) return undefined;
    return warning(
      refOf(raw, folded, kind),
      'kind',
      `${kind} is not served (kinds are case-sensitive); did you mean ${folded.kind}?`,
    );
  }
  return misspeltKind(raw, KNOWN, kind, given);
}

/** How far a kind may be from a known one: 1 for kinds of 6 letters or fewer, else 2. */
function kindSlack(known: string): number {
  return known.length <= 6 ? 1 : 2;
}

/** The distance of `given`'s group from `k`'s (0 when equal), or undefined when farther than 2. */
function groupDistance(given: string | undefined, k: KnownKind): number | undefined {
  const want = groupOf(preferred(k));
  if (given === undefined) return 0;
  const group = groupOf(given);
  if (group === want) return 0;
  if (group === '' || want === '') return undefined;
  const d = editDistance(group, want);
  return d <= 2 ? d : undefined;
}

/** A known kind with a misspelt group (`metaprotocl.aeraki.io/v1alpha1`). */
function misspeltGroup(
  raw: Record<string, unknown>,
  exact: KnownKind,
  given: string,
): ConfigIssue | undefined {
  const d = groupDistance(given, exact);
  if (d === undefined || d === 0) return undefined;
  return warning(
    refOf(raw, exact),
    'apiVersion',
    `${given} is not served; did you mean ${preferred(exact)}?`,
  );
}

/**
 * A kind close to a known one (`MetaRoute`, `MetaRouters`) in its group or one as close (or without apiVersion):
 * the closest (kind and group distances added; the first of equals in the order the kinds are read).
 */
function misspeltKind(
  raw: Record<string, unknown>,
  KNOWN: readonly KnownKind[],
  kind: string,
  given: string | undefined,
): ConfigIssue | undefined {
  let best: { k: KnownKind; d: number; group: number } | undefined;
  for (const k of KNOWN) {
    const d = editDistance(kind.toLowerCase(), k.kind.toLowerCase());
    if (d > kindSlack(k.kind)) continue;
    const group = groupDistance(given, k);
    if (group === undefined) continue;
    if (best === undefined || d + group < best.d + best.group) best = { k, d, group };
  }
  if (best === undefined) return undefined;
  const version = given !== undefined && best.k.versions.includes(given);
  const meant = version ? best.k.kind : `${best.k.kind} (apiVersion ${preferred(best.k)})`;
  return warning(refOf(raw, best.k, kind), 'kind', `${kind} is not served; did you mean ${meant}?`);
}

/** The object as written: its kind, its name and (for a namespaced kind) its namespace or `default`. */
function refOf(raw: Record<string, unknown>, k: KnownKind, kind: string = k.kind): ObjectRef {
  const md = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const name = typeof md['name'] === 'string' ? md['name'] : '';
  const ns =
    typeof md['namespace'] === 'string' && md['namespace'] !== '' ? md['namespace'] : DEFAULT_NAMESPACE;
  return { kind, namespace: k.clusterScoped ? '' : ns, name };
}
