import type { Logger } from '../util/logger.ts';
import type { RdsLimits } from './limits.ts';
import type { RdsMetrics } from './metrics.ts';
import { checkPeer, type PeerCertificateLike, type PeerPolicy } from '../util/peer-policy.ts';
import type { RefusalReason } from './peer-policy.ts';

/** gRPC status codes of refusals. */
export const STATUS_PERMISSION_DENIED = 7;
export const STATUS_RESOURCE_EXHAUSTED = 8;

/** Refusals are logged once per (reason, identity); past this many distinct ones, at debug level only. */
const MAX_LOGGED = 10_000;

export type Admission =
  | { readonly ok: true; readonly identity: string; release(): void }
  | { readonly ok: false; readonly code: number; readonly message: string };

/**
 * Decides whether a new RDS stream may proceed, before it reads or sends anything: the peer policy (who may read
 * routes) and the limit of connections per identity (a connection is the peer address of the stream). Every
 * refusal is counted by reason and logged once per identity with the reason.
 */
export class RdsAdmission {
  /** identity -> connection (peer address) -> open streams. */
  private readonly connections = new Map<string, Map<string, number>>();
  private readonly logged = new Set<string>();

  constructor(
    private readonly policy: PeerPolicy | undefined,
    private readonly limits: Pick<RdsLimits, 'maxConnectionsPerIdentity'>,
    private readonly metrics: RdsMetrics,
    private readonly logger: Logger,
  ) {}

  /** Identities with open streams. */
  get identityCount(): number {
    return this.connections.size;
  }

  /**
   * `cert` is the verified peer certificate (ignored without a policy, i.e. plaintext RDS). `trustDomainOnly`: only
   * the trust domain is checked, not the namespaces and identities that may read routes (ADS streams of waypoints:
   * their Gateway's identity is checked by the stream, ads-identity.ts).
   */
  admit(
    cert: PeerCertificateLike | undefined,
    identity: string,
    connection: string,
    trustDomainOnly = false,
  ): Admission {
    if (this.policy) {
      const policy = trustDomainOnly
        ? { ...this.policy, allowedNamespaces: [], allowedIdentities: [] }
        : this.policy;
      const verdict = checkPeer(cert, policy);
      if (!verdict.ok) {
        this.refused(verdict.reason, verdict.identity, verdict.message);
        return { ok: false, code: STATUS_PERMISSION_DENIED, message: verdict.message };
      }
    }
    const conns = this.connections.get(identity) ?? new Map<string, number>();
    const max = this.limits.maxConnectionsPerIdentity;
    if (!conns.has(connection) && conns.size >= max) {
      const message = `${identity} already holds ${conns.size} connections; at most ${max} are accepted`;
      this.refused('connection_limit', identity, message);
      return { ok: false, code: STATUS_RESOURCE_EXHAUSTED, message };
    }
    conns.set(connection, (conns.get(connection) ?? 0) + 1);
    this.connections.set(identity, conns);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (conns.get(connection) ?? 1) - 1;
      if (left > 0) conns.set(connection, left);
      else conns.delete(connection);
      if (conns.size === 0 && this.connections.get(identity) === conns) this.connections.delete(identity);
    };
    return { ok: true, identity, release };
  }

  /** Counts a refusal and logs it (warn) the first time this reason is seen for this identity. */
  refused(reason: RefusalReason, identity: string, message: string): void {
    this.metrics.recordRefusal(reason);
    const key = `${reason}\u0000${identity}`;
    const first = !this.logged.has(key) && this.logged.size < MAX_LOGGED;
    if (first) this.logged.add(key);
    const fields = { identity, reason, message };
    if (first) this.logger.warn('rds: client refused', fields);
    else this.logger.debug('rds: client refused', fields);
  }
}
