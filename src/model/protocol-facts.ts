/**
 * What each plugin declares about the protocols it handles (Generator.protocols and Generator.facts), read by
 * `analyze` (contrib filters, well-known ports) and served to the debug page (`/debug/protocols`): the plugins
 * are the one place these facts are written; app/ hands them on.
 */
import type { Protocol, ProtocolNames } from './protocol.ts';

export interface ProtocolFacts {
  /** The detection name: the second `-` segment of a port name, lower-cased (`dubbo` in `tcp-dubbo`). */
  readonly name: Protocol;
  /**
   * The Envoy filter of this protocol when Envoy builds it only in its contrib images (the `contrib/` folder of
   * envoyproxy/envoy, listed in contrib/contrib_build_config.bzl); absent: a core filter or none.
   */
  readonly contribFilter?: string;
  /** Port numbers this protocol is known to use, in order (Dubbo's 20880); absent: none. */
  readonly wellKnownPorts?: readonly number[];
}

/** What a plugin declares (model/generator.ts Generator: its protocols and their facts). */
export interface ProtocolDeclaration {
  readonly protocols: readonly Protocol[];
  readonly facts?: readonly ProtocolFacts[];
}

/** The facts of every protocol of `generators`, in generator order: the declared ones, else the name alone. */
export function protocolFactsOf(generators: readonly ProtocolDeclaration[]): ProtocolFacts[] {
  return generators.flatMap((g) =>
    g.protocols.map((name) => g.facts?.find((f) => f.name === name) ?? { name }),
  );
}

/**
 * `/debug/protocols`: the names port names are detected by (plugins/registry.ts createProtocolNames) and each
 * plugin's facts. The debug page reads the names from here, so it detects protocols as the controller does.
 */
export interface ProtocolsDocument {
  readonly detected: readonly string[];
  readonly plugins: readonly ProtocolFacts[];
}

export function protocolsDocument(
  generators: readonly ProtocolDeclaration[],
  detection: ProtocolNames,
): ProtocolsDocument {
  return { detected: [...detection.names], plugins: protocolFactsOf(generators) };
}
