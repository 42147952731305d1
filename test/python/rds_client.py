"""An independent RDS client: Debian's python3-grpcio (C-core, BoringSSL) and python3-protobuf.

Messages are wire-compatible subsets of Envoy's, built from a FileDescriptorProto constructed here (no protoc;
the discovery messages, the channel and the refusal check are xds_mini.py's).

  rds_client.py full PORT CA CERT KEY NAME     request NAME, print each response as one JSON line, ACK it;
                                               exits after the second response
  rds_client.py once PORT CA CERT KEY NAME     request NAME, print the first response as one JSON line, exit
  rds_client.py refused PORT CA [CERT KEY]     expect the server to refuse the connection; prints the status
"""
import json
import queue
import sys

from xds_mini import build_messages, channel, discovery_stream, expect_refused, requests

TYPE_URL = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"


def route_messages(msg, F):
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    s, m = F.TYPE_STRING, F.TYPE_MESSAGE
    msg("RouteAction", [("cluster", 1, s, opt, None)])
    msg("RouteMatch", [("prefix", 1, s, opt, None)])
    msg("Route", [("match", 1, m, opt, ".mini.RouteMatch"), ("route", 2, m, opt, ".mini.RouteAction"),
                  ("name", 14, s, opt, None)])
    msg("VirtualHost", [("name", 1, s, opt, None), ("domains", 2, s, rep, None), ("routes", 3, m, rep, ".mini.Route")])
    msg("RouteConfiguration", [("name", 1, s, opt, None), ("virtual_hosts", 2, m, rep, ".mini.VirtualHost")])


M = build_messages("mini_rds.proto", route_messages, ("DiscoveryRequest", "DiscoveryResponse", "RouteConfiguration"))


def stream_routes(ch):
    return discovery_stream(ch, "/envoy.service.route.v3.RouteDiscoveryService/StreamRoutes", M["DiscoveryResponse"])


def full(port, ca, cert, key, name, responses=2):
    q = queue.Queue()
    q.put(M["DiscoveryRequest"](node={"id": "sidecar~10.0.0.9~py.ns~ns.svc.cluster.local"},
                                resource_names=[name], type_url=TYPE_URL))
    ch = channel(port, ca, cert, key)
    seen = 0
    for resp in stream_routes(ch)(requests(q), timeout=30):
        routes = []
        for any_msg in resp.resources:
            rc = M["RouteConfiguration"].FromString(any_msg.value)
            routes.append({
                "typeUrl": any_msg.type_url, "name": rc.name,
                "clusters": [r.route.cluster for vh in rc.virtual_hosts for r in vh.routes],
            })
        print(json.dumps({"version": resp.version_info, "nonce": resp.nonce, "typeUrl": resp.type_url,
                          "routes": routes}), flush=True)
        q.put(M["DiscoveryRequest"](version_info=resp.version_info, resource_names=[name],
                                    type_url=TYPE_URL, response_nonce=resp.nonce))
        seen += 1
        if seen == responses:
            break
    q.put(None)
    ch.close()


def refused(port, ca, cert=None, key=None):
    ch = channel(port, ca, cert, key)
    first = M["DiscoveryRequest"](resource_names=["x"], type_url=TYPE_URL)
    return expect_refused(ch, stream_routes(ch), first, say_when_ended=True)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode in ("full", "once"):
        full(int(args[0]), args[1], args[2], args[3], args[4], 2 if mode == "full" else 1)
        sys.exit(0)
    sys.exit(refused(int(args[0]), *args[1:]))
