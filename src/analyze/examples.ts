/**
 * Pieces of the example inputs of the code reference (docs/analyze.md), shared by the analyzers' AnalysisCode
 * examples: each example is still a whole input as a user writes it.
 */

/** The ServiceEntry `shop/orders` of the examples, up to its ports. */
export const ORDERS_ENTRY_HEAD = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.10]
`;

/** That ServiceEntry with one MetaProtocol Dubbo port, 20880. */
export const ORDERS_ENTRY = `${ORDERS_ENTRY_HEAD}  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
`;
