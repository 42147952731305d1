/**
 * Proto3 JSON shapes of the parts of `envoy.config.route.v3.RouteConfiguration` the MetaProtocol RDS server
 * sends (wire-formats.md 3.3 and 4.3). Keys are proto3 JSON names; wrapper types (`weight`, `totalWeight`) are
 * bare numbers; enums are strings. Fields at their default value are left out, oneof members are always written.
 */

export interface RegexMatcherJson {
  readonly googleRe2: Record<string, never>;
  readonly regex: string;
}

export type HeaderMatcherJson =
  | { readonly name: string; readonly exactMatch: string }
  | { readonly name: string; readonly prefixMatch: string }
  | { readonly name: string; readonly safeRegexMatch: RegexMatcherJson }
  | { readonly name: string; readonly presentMatch: true };

export interface RouteMatchJson {
  readonly prefix: '/';
  readonly headers?: readonly HeaderMatcherJson[];
}

export interface ClusterWeightJson {
  readonly name: string;
  readonly weight: number;
}

export interface WeightedClusterJson {
  readonly clusters: readonly ClusterWeightJson[];
  readonly totalWeight: number;
}

export interface HashPolicyJson {
  readonly header: { readonly headerName: string };
}

export interface RequestMirrorPolicyJson {
  readonly cluster: string;
  readonly runtimeFraction: {
    readonly defaultValue: { readonly numerator: number; readonly denominator: 'MILLION' };
  };
}

export interface RouteActionJson {
  readonly cluster?: string;
  readonly weightedClusters?: WeightedClusterJson;
  readonly hashPolicy?: readonly HashPolicyJson[];
  readonly requestMirrorPolicies?: readonly RequestMirrorPolicyJson[];
}

export interface HeaderValueOptionJson {
  readonly header: { readonly key: string; readonly value: string };
}

export interface RouteJson {
  readonly name?: string;
  readonly match: RouteMatchJson;
  readonly route: RouteActionJson;
  readonly requestHeadersToAdd?: readonly HeaderValueOptionJson[];
  readonly responseHeadersToAdd?: readonly HeaderValueOptionJson[];
}

export interface VirtualHostJson {
  readonly name: 'dummy';
  readonly domains: readonly ['*'];
  readonly routes: readonly RouteJson[];
}

/** One MetaProtocol RDS resource, named `<host>_<port>`. */
export interface RouteConfigurationJson {
  readonly name: string;
  readonly virtualHosts: readonly [VirtualHostJson];
}
