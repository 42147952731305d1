/**
 * Documents that almost name a kind this controller reads and so would be skipped without a word: a known group
 * with a version nobody serves (`metaprotocol.aeraki.io/v1`), a kind that differs from a known one only in case
 * (`Metarouter`), a known kind without `apiVersion`. Each gives one warning naming the object as written and what
 * was probably meant (`MetaRouter rpc/r: apiVersion: metaprotocol.aeraki.io/v1 is not served; did you mean
 * metaprotocol.aeraki.io/v1alpha1?`); `aeraki validate --strict` fails on it. Any other document (another group,
 * such as the Gateway API's Gateway or a Knative Service, or a kind nobody reads) is not a near miss.
 */
import { isPlainObject } from '../../util/json.ts';
import { describe } from './fields.ts';
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
    if (exact.versions.includes(given) || groupOf(given) !== groupOf(preferred(exact))) return undefined;
    return warning(
      refOf(raw, exact),
      'apiVersion',
      `${given} is not served; did you mean ${preferred(exact)}?`,
    );
  }
  const folded = KNOWN.find((k) => k.kind.toLowerCase() === kind.toLowerCase());
  if (!folded || (given !== undefined && groupOf(given) !== groupOf(preferred(folded)))) return undefined;
  return warning(
    refOf(raw, folded, kind),
    'kind',
    `${kind} is not served (kinds are case-sensitive); did you mean ${folded.kind}?`,
  );
}

/** The object as written: its kind, its name and (for a namespaced kind) its namespace or `default`. */
function refOf(raw: Record<string, unknown>, k: KnownKind, kind: string = k.kind): ObjectRef {
  const md = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const name = typeof md['name'] === 'string' ? md['name'] : '';
  const ns =
    typeof md['namespace'] === 'string' && md['namespace'] !== '' ? md['namespace'] : DEFAULT_NAMESPACE;
  return { kind, namespace: k.clusterScoped ? '' : ns, name };
}
