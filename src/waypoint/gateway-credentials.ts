/**
 * The xDS client credential of each accepted Gateway, as the leader keeps it: the certificate held (read once per
 * leadership from the Secret `W-xds` when it is still good: issued by the current CA for the Gateway's identity,
 * key matching), reissued when there is none, when the CA changed, or at half its lifetime (renewalTime, on the
 * injected Clock). `nextRenewal()` says when the controller must run again.
 */
import { gatewayKey, waypointSecretName, type GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import type { WaypointCa } from './ca.ts';
import {
  LEAF_LIFETIME_MS,
  checkHeldCertificate,
  issueWaypointCertificate,
  renewalTime,
  waypointSpiffeId,
  type PemPair,
} from './gateway-certs.ts';
import type { WaypointKubePort } from './gateway-kube.ts';
import type { GatewayInfo } from './gateway-objects.ts';
import { credentialOf } from './owned-objects.ts';

interface Held {
  readonly uid: string;
  readonly caCert: string;
  readonly pair: PemPair;
  readonly renewAt: number;
}

export interface WaypointCredentialsOptions {
  readonly port: WaypointKubePort;
  readonly ca: WaypointCa;
  readonly trustDomain: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Lifetime of a client certificate (default 24 h). */
  readonly lifetimeMs?: number;
}

export class WaypointCredentials {
  private readonly held = new Map<GatewayKey, Held>();

  constructor(private readonly o: WaypointCredentialsOptions) {}

  /** The current certificate and key of Gateway `g`, issued or renewed as needed (may create the CA). */
  async credential(g: GatewayInfo): Promise<PemPair> {
    const now = this.o.clock.now();
    const ca = await this.o.ca.ensure(this.o.port, now);
    const key = gatewayKey(g.namespace, g.name);
    const spiffeId = waypointSpiffeId(this.o.trustDomain, g.namespace, g.name);
    let held = this.held.get(key);
    if (held === undefined || held.uid !== g.uid) held = await this.readHeld(g, ca, spiffeId);
    if (held === undefined || held.caCert !== ca.cert || now >= held.renewAt) {
      const pair = issueWaypointCertificate(ca, spiffeId, now, this.o.lifetimeMs ?? LEAF_LIFETIME_MS);
      const check = checkHeldCertificate(pair, ca.cert, spiffeId);
      if (check === undefined) throw new Error(`issued an invalid certificate for ${spiffeId}`);
      this.o.logger.info(
        held === undefined ? 'issued a waypoint certificate' : 'renewed a waypoint certificate',
        {
          gateway: key,
          notAfter: new Date(check.notAfter).toISOString(),
        },
      );
      held = { uid: g.uid, caCert: ca.cert, pair, renewAt: renewalTime(check) };
    }
    this.held.set(key, held);
    return held.pair;
  }

  /** The Secret's certificate, when it is still good for `g`. */
  private async readHeld(g: GatewayInfo, ca: PemPair, spiffeId: string): Promise<Held | undefined> {
    const secret = await this.o.port.getSecret(g.namespace, waypointSecretName(g.name));
    const c = credentialOf(secret?.data);
    if (c === undefined) return undefined;
    const pair = { cert: c.cert, key: c.key };
    const check = checkHeldCertificate(pair, ca.cert, spiffeId);
    return check === undefined
      ? undefined
      : { uid: g.uid, caCert: ca.cert, pair, renewAt: renewalTime(check) };
  }

  /** Forgets the Gateways not in `keep`. */
  retain(keep: ReadonlySet<GatewayKey>): void {
    for (const k of [...this.held.keys()]) if (!keep.has(k)) this.held.delete(k);
  }

  /** Forgets everything (a new leadership reads the Secrets again). */
  clear(): void {
    this.held.clear();
  }

  /** The earliest renewal time of the certificates held; undefined when none. */
  nextRenewal(): number | undefined {
    let at: number | undefined;
    for (const h of this.held.values()) if (at === undefined || h.renewAt < at) at = h.renewAt;
    return at;
  }
}
