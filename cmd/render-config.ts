/** The options of `aeraki render`: its row table and the check that at least one file is given. */
import type { Command } from 'commander';
import { DEFAULT_ROOT_NAMESPACE } from '../src/model/constants.ts';
import type { RenderOptions } from '../src/app/render.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../src/model/proxy-images.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { appendPath, parseBoolean, parseNamespace, parseOutputFormat } from './parsers.ts';
import {
  CLUSTER_DOMAIN_ROW,
  ConfigError,
  METAPROTOCOL_IMAGES_ROW,
  resolveConfig,
  type Env,
  type RowTable,
} from './rows.ts';

/** The options as the rows read them: `metaProtocolImages` holds the flag's images alone. */
type RenderRowOptions = Omit<RenderOptions, 'waypointFilters' | 'metaProtocolImages'> & {
  readonly waypointFilters: boolean;
  readonly metaProtocolImages: readonly string[];
};

export const RENDER_ROWS: RowTable<RenderRowOptions> = {
  files: {
    flag: '-f, --filename <file-or-dir>',
    default: [],
    description: 'file or directory of YAML/JSON objects (repeatable; directories are read recursively)',
    parse: appendPath,
  },
  output: {
    flag: '-o, --output <format>',
    default: 'yaml',
    description: 'output format: yaml or json',
    parse: parseOutputFormat,
  },
  routes: {
    flag: '--routes',
    default: false,
    description: 'render the MetaProtocol RDS RouteConfigurations instead of the EnvoyFilters',
    parse: parseBoolean,
  },
  namespace: {
    flag: '-n, --namespace <namespace>',
    default: undefined,
    description:
      'namespace of the objects that name none, as kubectl apply -n: an object of another namespace is an error (without -n: default)',
    parse: parseNamespace,
  },
  rootNamespace: {
    flag: '--root-namespace <namespace>',
    env: 'AERAKI_NAMESPACE',
    default: DEFAULT_ROOT_NAMESPACE,
    description:
      'Istio root namespace: default EnvoyFilter namespace, `*` of exportTo, home of the mesh ConfigMap',
    parse: parseNamespace,
  },
  clusterDomain: CLUSTER_DOMAIN_ROW,
  ...FILE_LIMIT_ROWS,
  namespaceScope: {
    flag: '--namespace-scope',
    env: 'AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE',
    default: false,
    description:
      "put filters without exportTo in their ServiceEntry's namespace instead of the root namespace",
    parse: parseBoolean,
  },
  waypointFilters: {
    flag: '--waypoint-envoyfilters',
    default: false,
    description:
      'read Namespaces and Gateway API Gateways/GatewayClasses too and write EnvoyFilters for Istio waypoints (targetRefs; Istio documents this as unsupported)',
    parse: parseBoolean,
  },
  metaProtocolImages: METAPROTOCOL_IMAGES_ROW,
};

/** The validated options of `aeraki render`. */
export function renderConfig(command: Command, env: Env): RenderOptions {
  const { namespace, ...c } = resolveConfig(RENDER_ROWS, command, env);
  if (c.files.length === 0) throw new ConfigError('at least one -f <file-or-dir> is required');
  return Object.freeze({
    ...c,
    ...(namespace !== undefined ? { namespace } : {}),
    files: Object.freeze([...c.files]),
    metaProtocolImages: Object.freeze([...DEFAULT_META_PROTOCOL_IMAGES, ...c.metaProtocolImages]),
  });
}
