/**
 * Two Gateways that would patch the same gateway listener: both select the same workloads and both have a
 * MetaProtocol server on the same port, so each gets its own gateway EnvoyFilter replacing the network filter of
 * listener `0.0.0.0_<port>` on those workloads, and which one the proxy ends up with is not defined. A warning on
 * each Gateway, at the server's port; part of hostConflicts.
 *
 * Overlap is decided from the selectors alone (no pod labels are known here):
 * - equal selectors (the same labels and values) select the same workloads wherever the Gateways live, since a
 *   Gateway selector searches workloads in every namespace;
 * - in the same namespace, two selectors also overlap when they are compatible: no label is required with two
 *   different values, so a workload carrying the union of both label sets matches both (an empty selector is
 *   compatible with any). Across namespaces only equal selectors count: gateway deployments usually differ by
 *   namespace, and a compatible pair there is far more often two separate gateways than one.
 */
import type { Gateway } from '../objects.ts';
import { selectsProtocol } from '../protocol.ts';
import { refOf, refString, warning, type ConfigIssue } from '../result.ts';
import type { ConfigView } from '../view.ts';

/** The MetaProtocol server ports of `gw`: port number → index of the first server on it. */
function metaProtocolPorts(gw: Gateway): Map<number, number> {
  const ports = new Map<number, number>();
  gw.spec.servers.forEach((server, i) => {
    if (selectsProtocol(server.port.name, 'metaprotocol') && !ports.has(server.port.number)) {
      ports.set(server.port.number, i);
    }
  });
  return ports;
}

/** True when a workload can match both selectors (see the module comment). */
export function selectorsOverlap(a: Gateway, b: Gateway): boolean {
  const sa = a.spec.selector;
  const sb = b.spec.selector;
  let equal = Object.keys(sa).length === Object.keys(sb).length;
  let compatible = true;
  for (const key in sa) {
    const other = sb[key];
    if (other === undefined) equal = false;
    else if (other !== sa[key]) {
      equal = false;
      compatible = false;
    }
  }
  return equal || (compatible && a.metadata.namespace === b.metadata.namespace);
}

function selectorText(gw: Gateway): string {
  const labels = Object.entries(gw.spec.selector).map(([k, v]) => `${k}=${v}`);
  return labels.length > 0 ? labels.join(',') : '(empty)';
}

function claimWarning(gw: Gateway, server: number, other: Gateway, port: number): ConfigIssue {
  return warning(
    refOf(gw),
    `spec.servers[${server}].port.number`,
    `${refString(refOf(other))} (selector ${selectorText(other)}) selects the same workloads as this one ` +
      `(selector ${selectorText(gw)}) and also has a MetaProtocol server on port ${port}: both gateway filters ` +
      'replace the filter of the same listener, and which one the gateway keeps is undefined',
  );
}

/**
 * The warnings on `gw` for every other Gateway (in Gateway order) that selects the same workloads with a
 * MetaProtocol server on one of its ports; the other Gateway gets its own warning from its own call. Reads every
 * Gateway (`view.gateways()`), so an incremental caller recomputes it on any Gateway change.
 */
export function gatewaySelectorConflictsOf(view: ConfigView, gw: Gateway): ConfigIssue[] {
  const ports = metaProtocolPorts(gw);
  if (ports.size === 0) return [];
  const out: ConfigIssue[] = [];
  for (const other of view.gateways()) {
    if (other === gw || !selectorsOverlap(gw, other)) continue;
    const otherPorts = metaProtocolPorts(other);
    for (const [port, server] of ports) {
      if (otherPorts.has(port)) out.push(claimWarning(gw, server, other, port));
    }
  }
  return out;
}
