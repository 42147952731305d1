/**
 * The parts `startServe` hands to its Lifecycle (kit/lifecycle.ts), each with the start error that names the flag to
 * change. A part's start undoes its own partial work when it throws.
 */
import type { Part } from '../kit/lifecycle.ts';
import type { AdminServer } from '../ops/admin-server.ts';
import type { Reconciler } from '../reconcile/reconciler.ts';
import type { ListenAddress } from '../util/address.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { RdsServer } from '../xds-rds/server.ts';
import type { KubeOutput } from './kube-output.ts';
import type { Registries } from '../registry/registries.ts';
import type { ConfigSources } from './sources.ts';

/** Binds the RDS server; its drain ends every stream with UNAVAILABLE, once nothing writes any more. */
export function rdsPart(rds: RdsServer, where: string, bound: (port: number) => void): Part {
  return {
    name: 'rds',
    start: async () => {
      try {
        bound(await rds.start());
      } catch (err) {
        await rds.stop();
        throw new Error(
          `cannot serve RDS on ${where}: ${(err as Error).message} (choose another --rds-address)`,
          { cause: err },
        );
      }
    },
    drain: () => rds.stop(),
  };
}

/** Binds an admin or debug listener; a bind failure names the flag to change. */
export function httpPart(
  name: string,
  server: AdminServer,
  flag: string,
  bound: (address: ListenAddress) => void,
): Part {
  return {
    name,
    start: async () => {
      try {
        bound(await server.start());
      } catch (err) {
        await server.stop();
        throw new Error(`${(err as Error).message}: ${causeMessage(err)} (choose another ${flag})`, {
          cause: err,
        });
      }
    },
    stop: () => server.stop(),
  };
}

/**
 * Everything that writes: the reconciler, the registry outputs and the Kubernetes output (bootstrap, VIPs, status,
 * the lease). The drain stops writing in that order, the lease released last; the stop ends the output's watches.
 */
export function writersPart(
  reconciler: Reconciler,
  registries: Registries | undefined,
  kubeOut: KubeOutput | undefined,
): Part {
  const drain = async (): Promise<void> => {
    await reconciler.stop();
    await registries?.stop();
    await kubeOut?.stopWriters();
  };
  return {
    name: 'writers',
    start: async () => {
      reconciler.start();
      kubeOut?.start();
      try {
        await registries?.start();
      } catch (err) {
        await drain();
        await kubeOut?.stopWatches();
        throw new Error(
          `cannot start the registries: ${(err as Error).message} (a taken --mcp-server-address?)`,
          { cause: err },
        );
      }
    },
    drain,
    stop: () => kubeOut?.stopWatches(),
  };
}

/** The config sources; a start error is logged and the process runs on (the sources retry). */
export function sourcesPart(sources: ConfigSources, log: Logger): Part {
  return {
    name: 'sources',
    start: async () => {
      try {
        await sources.start();
      } catch (err) {
        log.error('cannot start the config sources', errorFields(err));
      }
    },
    stop: () => sources.stop(),
  };
}

function causeMessage(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : String(cause);
}
