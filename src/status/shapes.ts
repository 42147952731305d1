/**
 * Whether the CRD installed for each status resource has the status subresource, from discovery
 * (kit/kube/discovery.ts: `<plural>/status` listed in the APIResourceList). The installed CRD decides, not ours
 * (README, Migrating from Aeraki: Aeraki's CRDs).
 *
 * Contract: a resource is described when it has objects and no description is held; a description is forgotten
 * when the resource has no objects (its CRD may be replaced), on `forgetAll` (the periodic resync) and on
 * `forget` (a write answered 404). A resource without the status subresource is said once at info per
 * description change, never per run.
 */
import { qualifiedResource, type ResourceShapes, type ServedResource } from '../kit/kube/discovery.ts';
import type { Logger } from '../util/logger.ts';

export interface ShapedResource {
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

export class StatusShapes {
  private readonly shapes = new Map<string, ServedResource>();
  /** Kinds last said to have no status subresource. */
  private readonly without = new Set<string>();

  constructor(
    private readonly discovery: ResourceShapes,
    private readonly log: Logger | undefined,
  ) {}

  /**
   * Describes `r` when needed (it has objects: `count` > 0), forgets it otherwise. Returns false when its CRD has
   * no status subresource (its objects get no status). Rejects when discovery fails.
   */
  async hasStatus(r: ShapedResource, count: number): Promise<boolean> {
    if (count === 0) {
      this.shapes.delete(r.kind);
      return true;
    }
    let shape = this.shapes.get(r.kind);
    if (shape === undefined) {
      shape = await this.discovery.describe(r);
      if (shape === undefined) return true; // not served at this version: the writes say so
      this.shapes.set(r.kind, shape);
      this.said(r, shape);
    }
    return shape.status;
  }

  forget(kind: string): void {
    this.shapes.delete(kind);
  }

  forgetAll(): void {
    this.shapes.clear();
  }

  private said(r: ShapedResource, shape: ServedResource): void {
    if (shape.status) {
      this.without.delete(r.kind);
      return;
    }
    if (this.without.has(r.kind)) return;
    this.without.add(r.kind);
    this.log?.info(
      `${qualifiedResource(r)} has no status subresource (its CRD declares none): no status is written for ${r.kind} objects`,
      { kind: r.kind },
    );
  }
}
