/**
 * `aeraki validate` and the webhook's validator: model/validate/validate.ts with the generation-time checks of `aeraki
 * render` (generateAll over a store of the parsed objects, then the ports nothing handles), so a file set reports
 * exactly the issues render reports for it.
 */
import { fileLimitsOf, type FileLimits } from '../controller/config-file.ts';
import { fillStore, readRawObjects } from '../controller/file-source.ts';
import { ConfigStore } from '../controller/store.ts';
import { generateAll } from '../envoyfilter/generate-all.ts';
import type { Generator } from '../model/generator.ts';
import { offlineIssues } from '../model/held.ts';
import { kindsOf } from '../model/kinds.ts';
import { DEFAULT_PARSE_OPTIONS } from '../model/parse/parse.ts';
import type { ParsedObjects } from '../model/parse/objects.ts';
import type { ConfigIssue } from '../model/result.ts';
import { validateObjects, type GenerationCheck } from '../model/validate/validate.ts';
import { createGenerators, createPluginKinds, createProtocolNames } from '../plugins/registry.ts';

/** The file limits (config-file.ts) default to DEFAULT_FILE_LIMITS. */
export interface ValidateFilesOptions extends Partial<FileLimits> {
  readonly files: readonly string[];
  readonly rootNamespace: string;
  readonly namespaceScope: boolean;
  /** Default cluster.local. */
  readonly clusterDomain?: string;
  /** `-n`: objects without a namespace take it, others are refused (model/parse/namespace-flag.ts). */
  readonly namespace?: string;
}

/** What `render` checks while generating, over a fresh store holding `objects`. */
export function generationCheck(
  o: { readonly rootNamespace: string; readonly namespaceScope: boolean; readonly clusterDomain?: string },
  generators: readonly Generator[] = createGenerators(),
): GenerationCheck {
  const domain = o.clusterDomain !== undefined ? { clusterDomain: o.clusterDomain } : {};
  const kinds = kindsOf(generators);
  const protocolNames = createProtocolNames(generators);
  return (objects) => {
    const store = new ConfigStore({ rootNamespace: o.rootNamespace, mesh: objects.mesh, ...domain, kinds });
    fillStore(store, objects);
    const generated = generateAll(store, generators, { namespaceScope: o.namespaceScope, protocolNames });
    return [...generated.issues, ...generated.unhandledPorts.map((p) => p.warning)];
  };
}

/** Every issue of the files, in render's order and format (unreadable files and YAML errors first). */
export function validateFiles(o: ValidateFilesOptions): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const kinds = createPluginKinds();
  const raws = readRawObjects(o.files, issues, fileLimitsOf(o), {
    kinds,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
  });
  const validated = validateObjects(raws, {
    rootNamespace: o.rootNamespace,
    parseOptions: {
      clusterDomain: o.clusterDomain ?? DEFAULT_PARSE_OPTIONS.clusterDomain,
      kinds,
    },
    issues,
    check: generationCheck(o),
  });
  // Offline: a held object is left out of render's output (serve's note on what stays written does not apply).
  return offlineIssues(validated.issues);
}

/** The objects a store holds, as validateObjects' `existing` (the webhook validates against the live store). */
export function storeObjects(store: ConfigStore): ParsedObjects {
  return {
    objects: store.configKinds.flatMap((k) => store.list(k)),
    rejected: store.rejected(),
    issues: [],
    mesh: store.mesh(),
  };
}
