/**
 * Parts `startServe` hands to its runtime (kit/runtime.ts), each with the start error that names the flag to
 * change. A part's start undoes its own partial work when it throws.
 */
import type { Part } from '../kit/lifecycle.ts';
import type { AdminServer } from '../ops/admin-server.ts';
import type { ListenAddress } from '../util/address.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { RdsServer } from '../xds-rds/server.ts';
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
 * The registry bridges, their namespace watch and the ServiceEntry MCP server (every replica); their kube output
 * is a leader part of its own. A start failure stops what started and names the flag to change; the drain stops
 * them all (the MCP streams end).
 */
export function registriesPart(registries: Registries): Part {
  return {
    name: 'registries',
    start: async () => {
      try {
        await registries.start();
      } catch (err) {
        await registries.stop();
        throw new Error(
          `cannot start the registries: ${(err as Error).message} (a taken --mcp-server-address?)`,
          { cause: err },
        );
      }
    },
    drain: () => registries.stop(),
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
