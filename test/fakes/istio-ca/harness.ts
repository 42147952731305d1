// Files and a provider around the fake Istio CA: the mesh root file, the token file, and an
// IstiodIdentityProvider on a ManualClock asking for `spiffe://cluster.local/ns/istio-system/sa/aeraki`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IstiodIdentityProvider } from '../../../src/identity/istiod.ts';
import { spiffeId } from '../../../src/identity/types.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { silentLogger, type Logger } from '../../../src/util/logger.ts';
import type { FakeIstioCa } from './server.ts';
import { serviceAccountToken, type TokenClaims } from './token.ts';

export const IDENTITY = spiffeId('cluster.local', 'istio-system', 'aeraki');
export const TTL_MS = 3_600_000;

export interface CaFiles {
  readonly dir: string;
  readonly rootFile: string;
  readonly tokenFile: string;
  writeRoot(pem: string): void;
  writeToken(claims?: Partial<TokenClaims>): void;
  remove(): void;
}

export function caFiles(ca: FakeIstioCa): CaFiles {
  const dir = mkdtempSync(path.join(tmpdir(), 'istio-ca-'));
  const rootFile = path.join(dir, 'root-cert.pem');
  const tokenFile = path.join(dir, 'istio-token');
  const files: CaFiles = {
    dir,
    rootFile,
    tokenFile,
    writeRoot: (pem) => writeFileSync(rootFile, pem),
    writeToken: (claims = {}) =>
      writeFileSync(
        tokenFile,
        serviceAccountToken({ namespace: 'istio-system', serviceAccount: 'aeraki', ...claims }),
      ),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  files.writeRoot(ca.issuer.ca);
  files.writeToken();
  return files;
}

/** A provider on a ManualClock (starting at the real time), retrying after 1 s, 2 s, ... without jitter. */
export function istiodProvider(
  ca: FakeIstioCa,
  files: CaFiles,
  o: { random?: () => number; clientRootFile?: string; serverName?: string; logger?: Logger } = {},
): { provider: IstiodIdentityProvider; clock: ManualClock } {
  const clock = new ManualClock(Date.now());
  const provider = new IstiodIdentityProvider({
    ca: {
      address: ca.address,
      rootCertFile: files.rootFile,
      tokenFile: files.tokenFile,
      serverName: o.serverName ?? ca.serverName,
    },
    identity: IDENTITY,
    ttlMs: TTL_MS,
    clientRootFile: o.clientRootFile ?? files.rootFile,
    pollIntervalMs: 60_000,
    clock,
    backoff: { initialMs: 1000, multiplier: 2, jitter: 0 },
    random: o.random ?? (() => 0),
    keyBits: 1024,
    logger: o.logger ?? silentLogger,
  });
  return { provider, clock };
}
