/**
 * Per-peer budgets of the route names an RDS client may make the server hold: the length of one name, the names of
 * one stream, and the bytes of subscribed names of one connection and of one identity (every connection of one
 * SPIFFE id together). A stream over one of them is refused (RESOURCE_EXHAUSTED, naming the budget and its flag).
 *
 * A name costs its UTF-8 length plus NAME_ENTRY_BYTES, what the server keeps per subscribed name besides the
 * string (the stream's set, the cache's watcher index, the acknowledgement entries): so a budget in bytes bounds
 * the memory held, short names included.
 */
/** Which budget refused: the `reason` label of `aeraki_rds_refused_total`. */
export type BudgetReason = 'name_length' | 'stream_budget' | 'connection_budget' | 'identity_budget';

export interface BudgetRefusal {
  readonly reason: BudgetReason;
  /** For the client (the gRPC status message) and the log: the budget, its value and its flag. */
  readonly message: string;
}

/** The budgets (part of RdsLimits; why the defaults are what they are: limits.ts). 0 means no limit. */
export interface NameBudgetLimits {
  /** Bytes of one route name (`--rds-max-route-name-bytes`). */
  readonly maxRouteNameBytes: number;
  /** Route names one stream may subscribe to (`--rds-max-route-names-per-stream`). */
  readonly maxRouteNamesPerStream: number;
  /** Bytes of route names (each plus NAME_ENTRY_BYTES) the streams of one connection may subscribe to. */
  readonly maxRouteNameBytesPerConnection: number;
  /** As above, over every connection of one client identity. */
  readonly maxRouteNameBytesPerIdentity: number;
}

/** What one subscribed name holds besides its characters (measured: test/xds-rds/budget-memory.test.ts). */
export const NAME_ENTRY_BYTES = 256;

/** The bytes a subscribed name counts for in the connection and identity budgets. */
export function nameCost(name: string): number {
  return Buffer.byteLength(name) + NAME_ENTRY_BYTES;
}

/** 0 means no limit. */
function over(value: number, max: number): boolean {
  return max > 0 && value > max;
}

/**
 * The connection and identity accounts of every open stream. Streams charge and release names through their
 * StreamBudget (`open`); an account whose streams all ended is deleted, so nothing stays once a client leaves.
 */
export class NameBudgets {
  private readonly connections = new Map<string, number>();
  private readonly identities = new Map<string, number>();

  constructor(
    readonly limits: NameBudgetLimits,
    /** Told of every refusal (count and log it); not called for streams of `standalone` budgets. */
    private readonly onRefused: (refusal: BudgetRefusal, identity: string) => void = () => {},
  ) {}

  /** The budget of a new stream of `identity` on `connection` (the `<address>:<port>` of its peer). */
  open(identity: string, connection: string): StreamBudget {
    return new StreamBudget(this, identity, `${identity}\u0000${connection}`);
  }

  /** Accounts held (connections and identities with subscribed names) and their bytes: all 0 once streams ended. */
  get held(): { readonly connections: number; readonly identities: number; readonly bytes: number } {
    let bytes = 0;
    for (const b of this.identities.values()) bytes += b;
    return { connections: this.connections.size, identities: this.identities.size, bytes };
  }

  /** Bytes charged to `identity` over all its connections. */
  identityBytes(identity: string): number {
    return this.identities.get(identity) ?? 0;
  }

  /** @internal: adds `delta` to both accounts, or refuses (nothing charged) when either would be over. */
  apply(identity: string, connection: string, delta: number): BudgetRefusal | undefined {
    const conn = (this.connections.get(connection) ?? 0) + delta;
    const id = (this.identities.get(identity) ?? 0) + delta;
    const refusal =
      delta > 0 && over(conn, this.limits.maxRouteNameBytesPerConnection)
        ? connectionRefusal(conn, this.limits.maxRouteNameBytesPerConnection)
        : delta > 0 && over(id, this.limits.maxRouteNameBytesPerIdentity)
          ? identityRefusal(identity, id, this.limits.maxRouteNameBytesPerIdentity)
          : undefined;
    if (refusal) {
      this.onRefused(refusal, identity);
      return refusal;
    }
    setOrDelete(this.connections, connection, conn);
    setOrDelete(this.identities, identity, id);
    return undefined;
  }

  /** @internal */
  refused(refusal: BudgetRefusal, identity: string): BudgetRefusal {
    this.onRefused(refusal, identity);
    return refusal;
  }
}

function setOrDelete(map: Map<string, number>, key: string, value: number): void {
  if (value > 0) map.set(key, value);
  else map.delete(key);
}

function connectionRefusal(bytes: number, max: number): BudgetRefusal {
  return {
    reason: 'connection_budget',
    message:
      `the connection would hold ${bytes} bytes of route names; the budget is ${max} bytes per connection ` +
      `(--rds-max-route-name-bytes-per-connection)`,
  };
}

function identityRefusal(identity: string, bytes: number, max: number): BudgetRefusal {
  return {
    reason: 'identity_budget',
    message:
      `${identity} would hold ${bytes} bytes of route names over its connections; the budget is ${max} bytes ` +
      `per identity (--rds-max-route-name-bytes-per-identity)`,
  };
}

/**
 * One stream's share of the budgets: checks the names of a request, and charges and releases what the stream
 * subscribes. `close()` releases everything it charged; idempotent.
 */
export class StreamBudget {
  private bytes = 0;
  private closed = false;

  constructor(
    private readonly budgets: NameBudgets,
    private readonly identity: string,
    private readonly connection: string,
  ) {}

  /**
   * A refusal when a request lists more names than a stream may subscribe or a name longer than the budget (`field`
   * names the request field); names of every list count, subscribed or not.
   */
  checkNames(field: string, names: readonly string[]): BudgetRefusal | undefined {
    const { maxRouteNamesPerStream: maxNames, maxRouteNameBytes: maxBytes } = this.budgets.limits;
    if (over(names.length, maxNames)) return this.tooMany(`${field} lists ${names.length}`, maxNames);
    if (maxBytes <= 0) return undefined;
    for (const [i, n] of names.entries()) {
      // UTF-8 takes 1 to 3 bytes per UTF-16 unit: count bytes only where the number of units leaves a doubt.
      if (n.length * 3 <= maxBytes) continue;
      const bytes = Buffer.byteLength(n);
      if (bytes > maxBytes) {
        return this.budgets.refused(
          {
            reason: 'name_length',
            message:
              `${field}[${i}] is ${bytes} bytes; the budget is ${maxBytes} bytes per route name ` +
              `(--rds-max-route-name-bytes)`,
          },
          this.identity,
        );
      }
    }
    return undefined;
  }

  /**
   * The stream will subscribe to `added` and drop `removed`, holding `total` names then: charges the difference,
   * or refuses (nothing charged) when a budget would be exceeded.
   */
  change(added: Iterable<string>, removed: Iterable<string>, total: number): BudgetRefusal | undefined {
    if (this.closed) return undefined;
    const maxNames = this.budgets.limits.maxRouteNamesPerStream;
    if (over(total, maxNames)) return this.tooMany(`the stream would subscribe to ${total}`, maxNames);
    let delta = 0;
    for (const n of added) delta += nameCost(n);
    for (const n of removed) delta -= nameCost(n);
    const refusal = this.budgets.apply(this.identity, this.connection, delta);
    if (!refusal) this.bytes += delta;
    return refusal;
  }

  /** Bytes this stream holds in its connection's and identity's budgets. */
  get charged(): number {
    return this.bytes;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.budgets.apply(this.identity, this.connection, -this.bytes);
    this.bytes = 0;
  }

  private tooMany(what: string, max: number): BudgetRefusal {
    const message = `${what} route names; the budget is ${max} per stream (--rds-max-route-names-per-stream)`;
    return this.budgets.refused({ reason: 'stream_budget', message }, this.identity);
  }
}
