// Helpers shared by the envoyfilter suites: desired objects and an in-memory sink with fault injection.
import { MANAGED_LABELS, SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { EnvoyFilterObject, OutputObject } from '../../src/model/objects.ts';
import type { ExistingObject } from '../../src/reconcile/diff.ts';
import { SinkError } from '../../src/kit/write.ts';
import type { EnvoyFilterSink } from '../../src/reconcile/sink.ts';
import { updateBody, toExisting } from '../../src/kit/kube/bodies.ts';

export function filter(namespace: string, name: string, source: string, value = 1): EnvoyFilterObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: {
      name,
      namespace,
      labels: { ...MANAGED_LABELS },
      annotations: { [SOURCE_ANNOTATION]: source },
    },
    spec: {
      configPatches: [
        {
          applyTo: 'NETWORK_FILTER',
          match: { listener: { name: `${name}_${value}` } },
          patch: { operation: 'REPLACE', value: { name: 'x', n: value } },
        },
      ],
    },
  };
}

export interface Fault {
  readonly op: 'list' | 'create' | 'update' | 'delete';
  readonly code: number;
  times: number;
}

/** A sink over a Map, counting writes; faults fail the next `times` calls of an op with an HTTP-like code. */
export class MemorySink implements EnvoyFilterSink {
  readonly name = 'memory';
  readonly objects = new Map<string, Record<string, unknown>>();
  readonly writes: { op: string; key: string }[] = [];
  readonly faults: Fault[] = [];
  private rv = 0;
  /** Number of list calls answered. */
  lists = 0;
  /** When set, a list takes its snapshot at once but answers only when this resolves (a list in flight). */
  listHold: Promise<void> | undefined;
  /** Called before every write; lets a test assert invariants at write time (e.g. leadership). */
  beforeWrite: (op: string, key: string) => void = () => {};

  private fault(op: Fault['op']): void {
    const f = this.faults.find((x) => x.op === op && x.times > 0);
    if (!f) return;
    f.times--;
    throw new SinkError(`${op}: HTTP ${f.code}`, {
      transient: f.code === 409 || f.code >= 500,
      code: f.code,
    });
  }

  seed(obj: Record<string, unknown>): void {
    const md = obj['metadata'] as { namespace: string; name: string };
    this.objects.set(`${String(obj['kind'])}/${md.namespace}/${md.name}`, {
      ...obj,
      metadata: { ...md, resourceVersion: String(++this.rv) },
    });
  }

  list(): Promise<ExistingObject[]> {
    this.fault('list');
    this.lists++;
    const out: ExistingObject[] = [];
    for (const o of this.objects.values()) {
      const e = toExisting(o['kind'] as 'EnvoyFilter', o);
      if (e && e.labels['manager'] === 'Aeraki') out.push(e);
    }
    return this.listHold ? this.listHold.then(() => out) : Promise.resolve(out);
  }

  /** The stored object as the sink reports it (what a write answers). */
  existing(key: string): ExistingObject | undefined {
    const o = this.objects.get(key);
    return o ? toExisting(o['kind'] as 'EnvoyFilter', o) : undefined;
  }

  create(obj: OutputObject): Promise<ExistingObject | undefined> {
    const key = `${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}`;
    this.beforeWrite('create', key);
    this.fault('create');
    if (this.objects.has(key)) throw new SinkError('exists', { transient: true, code: 409 });
    this.writes.push({ op: 'create', key });
    this.seed(JSON.parse(JSON.stringify(obj)));
    return Promise.resolve(this.existing(key));
  }

  update(obj: OutputObject, existing: ExistingObject): Promise<ExistingObject | undefined> {
    const key = `${obj.kind}/${obj.metadata.namespace}/${obj.metadata.name}`;
    this.beforeWrite('update', key);
    this.fault('update');
    const cur = this.objects.get(key);
    const rv = (cur?.['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion;
    if (rv !== existing.resourceVersion) throw new SinkError('conflict', { transient: true, code: 409 });
    this.writes.push({ op: 'update', key });
    this.seed(JSON.parse(JSON.stringify(updateBody(obj, existing))));
    return Promise.resolve(this.existing(key));
  }

  delete(existing: ExistingObject): Promise<void> {
    const key = `${existing.kind}/${existing.namespace}/${existing.name}`;
    this.beforeWrite('delete', key);
    this.fault('delete');
    this.writes.push({ op: 'delete', key });
    this.objects.delete(key);
    return Promise.resolve();
  }
}

/** A real-time clock whose timers keep the process alive (systemClock unrefs them). */
export { keepAliveClock as refClock } from '../../src/util/clock.ts';
