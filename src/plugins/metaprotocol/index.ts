import type { Generator } from '../../model/generator.ts';
import { generateGateway, generateSidecar } from './generator.ts';
import { generateMetaProtocolOwnWaypoint } from './own-waypoint.ts';
import { generateMetaProtocolWaypoint } from './waypoint.ts';

/** The MetaProtocol generator: ports named `<x>-metaprotocol-<app>[-...]`, sidecar and gateway mode. */
export function createMetaProtocolGenerator(): Generator {
  return {
    name: 'metaprotocol',
    protocols: ['metaprotocol'],
    generateSidecar,
    generateWaypoint: generateMetaProtocolWaypoint,
    generateOwnWaypoint: generateMetaProtocolOwnWaypoint,
    generateGateway,
  } satisfies Generator;
}
