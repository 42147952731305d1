// The ambient inputs of a waypoint case (Namespaces, Gateway API Gateways and GatewayClasses, as YAML) as an
// in-memory AmbientView over indexWaypoints, and generation with waypoint filters on over a render store.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { loadStore } from '../../src/app/render.ts';
import { generateAll, type GenerateOutput } from '../../src/envoyfilter/generate-all.ts';
import type { AmbientNamespace } from '../../src/model/ambient/binding.ts';
import {
  GATEWAY_API_GROUP,
  PROXY_IMAGE_ANNOTATION,
  WAYPOINT_FOR_LABEL,
} from '../../src/model/ambient/labels.ts';
import type { AmbientView } from '../../src/model/ambient/view.ts';
import {
  indexWaypoints,
  type WaypointGateway,
  type WaypointGatewayClass,
  type WaypointListener,
} from '../../src/model/ambient/waypoint.ts';
import { createGenerators, createProtocolNames } from '../../src/plugins/registry.ts';

type Json = Record<string, any>;

export interface AmbientInputs {
  readonly namespaces: AmbientNamespace[];
  readonly gateways: WaypointGateway[];
  readonly classes: WaypointGatewayClass[];
}

function listenerOf(l: Json): WaypointListener {
  const namespaces = l['allowedRoutes']?.['namespaces'] as Json | undefined;
  return {
    port: Number(l['port']),
    protocol: String(l['protocol']),
    ...(namespaces ? { allowedNamespaces: namespaces } : {}),
  };
}

/** The Namespaces, Gateways and GatewayClasses of a YAML text, read as the ambient model holds them. */
export function parseAmbient(text: string): AmbientInputs {
  const out: AmbientInputs = { namespaces: [], gateways: [], classes: [] };
  for (const doc of parseAllDocuments(text)) {
    const o = doc.toJS() as Json | null;
    if (!o) continue;
    const meta = (o['metadata'] ?? {}) as Json;
    const labels = (meta['labels'] ?? {}) as Record<string, string>;
    const annotations = (meta['annotations'] ?? {}) as Record<string, string>;
    const gatewayApi = String(o['apiVersion']).startsWith(`${GATEWAY_API_GROUP}/`);
    if (o['kind'] === 'Namespace') out.namespaces.push({ name: meta['name'], labels });
    else if (o['kind'] === 'GatewayClass' && gatewayApi) {
      const waypointFor = labels[WAYPOINT_FOR_LABEL];
      out.classes.push({ name: meta['name'], ...(waypointFor ? { waypointFor } : {}) });
    } else if (o['kind'] === 'Gateway' && gatewayApi) {
      const waypointFor = labels[WAYPOINT_FOR_LABEL];
      const proxyImage = annotations[PROXY_IMAGE_ANNOTATION];
      out.gateways.push({
        namespace: meta['namespace'],
        name: meta['name'],
        className: o['spec']?.['gatewayClassName'] ?? '',
        ...(waypointFor ? { waypointFor } : {}),
        ...(proxyImage ? { proxyImage } : {}),
        addressed: (o['status']?.['addresses'] ?? []).length > 0,
        listeners: ((o['spec']?.['listeners'] ?? []) as Json[]).map(listenerOf),
      });
    }
  }
  return out;
}

/** A small in-memory AmbientView (what the ConfigStore implements when it reads ambient inputs). */
export function ambientViewOf(inputs: AmbientInputs): AmbientView {
  const namespaces = new Map(inputs.namespaces.map((n) => [n.name, n]));
  const index = indexWaypoints(inputs.gateways, inputs.classes);
  return { ambientNamespace: (name) => namespaces.get(name), waypoints: () => index };
}

/** generateAll over the files of a case, with waypoint filters on (as `render --waypoint-envoyfilters` will). */
export function generateWaypointCase(input: string, ambientFile: string): GenerateOutput {
  const { store } = loadStore([input], 'istio-system');
  const ambient = ambientViewOf(parseAmbient(readFileSync(ambientFile, 'utf8')));
  const generators = createGenerators();
  return generateAll(store, generators, {
    namespaceScope: false,
    protocolNames: createProtocolNames(generators),
    waypointFilters: true,
    ambient,
  });
}
