"""An independent ADS client playing a waypoint proxy: Debian's python3-grpcio (C-core, BoringSSL) and
python3-protobuf, over mTLS, on StreamAggregatedResources (state of the world).

Messages are wire-compatible subsets of Envoy's (envoy/service/discovery/v3/discovery.proto, the names of the
resources), built from a FileDescriptorProto constructed here (no protoc; the discovery messages, the channel and
the refusal check are xds_mini.py's).

  ads_client.py waypoint PORT CA CERT KEY CLUSTER [TYPE_URL=NAME ...]
      as Envoy does: CDS (wildcard), then EDS for every cluster, LDS (wildcard), then each route TYPE_URL=NAME;
      ACKs each response; prints one JSON line per response, then {"subscribed": true}; then prints the next
      push (ACKed) and exits
  ads_client.py refused PORT CA CERT KEY CLUSTER
      expects the stream to be refused; prints the status
"""
import json
import queue
import sys

from xds_mini import build_messages, channel, discovery_stream, expect_refused, requests

CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
EDS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
LDS = "type.googleapis.com/envoy.config.listener.v3.Listener"


def resource_messages(msg, F):
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    s, m = F.TYPE_STRING, F.TYPE_MESSAGE
    # Cluster.name, ClusterLoadAssignment.cluster_name, the route configurations' name: field 1.
    msg("Named", [("name", 1, s, opt, None)])
    # Listener.name (1) and filter_chains (3), FilterChain.name (7).
    msg("FilterChain", [("name", 7, s, opt, None)])
    msg("Listener", [("name", 1, s, opt, None), ("filter_chains", 3, m, rep, ".mini.FilterChain")])


M = build_messages("mini_ads.proto", resource_messages, ("DiscoveryRequest", "DiscoveryResponse", "Named", "Listener"))


def stream(ch):
    return discovery_stream(
        ch, "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
        M["DiscoveryResponse"])


def describe(resp):
    out = []
    for any_msg in resp.resources:
        if resp.type_url == LDS:
            lis = M["Listener"].FromString(any_msg.value)
            out.append({"name": lis.name, "chains": [c.name for c in lis.filter_chains]})
        else:
            out.append({"name": M["Named"].FromString(any_msg.value).name})
    return {"typeUrl": resp.type_url, "version": resp.version_info, "nonce": resp.nonce, "resources": out}


def waypoint(port, ca, cert, key, cluster, routes):
    q = queue.Queue()
    node = {"id": "py-waypoint-0." + cluster.split(".")[-1], "cluster": cluster}
    req = M["DiscoveryRequest"]
    # Per type: the names asked (empty = wildcard), in the order Envoy asks (clusters before the listener).
    plan = [(CDS, None), (EDS, "clusters"), (LDS, None)] + [(t, [n]) for t, n in routes]
    names = {}
    q.put(req(node=node, type_url=CDS))
    ch = channel(port, ca, cert, key)
    step = 0
    for resp in stream(ch)(requests(q), timeout=30):
        line = describe(resp)
        print(json.dumps(line), flush=True)
        asked = names.get(resp.type_url, [])
        q.put(req(version_info=resp.version_info, resource_names=asked, type_url=resp.type_url,
                  response_nonce=resp.nonce))
        if resp.type_url == CDS and step == 0:
            names[EDS] = [r["name"] for r in line["resources"]]
        step += 1
        if step < len(plan):
            type_url, asked_next = plan[step]
            if asked_next == "clusters":
                asked_next = names[EDS]
            names[type_url] = asked_next or []
            q.put(req(type_url=type_url, resource_names=names[type_url]))
        elif step == len(plan):
            print(json.dumps({"subscribed": True}), flush=True)
        else:
            break
    q.put(None)
    ch.close()


def refused(port, ca, cert, key, cluster):
    ch = channel(port, ca, cert, key)
    first = M["DiscoveryRequest"](node={"id": "py", "cluster": cluster}, type_url=CDS)
    return expect_refused(ch, stream(ch), first, say_when_ended=False)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "waypoint":
        pairs = [a.split("=", 1) for a in args[5:]]
        waypoint(int(args[0]), args[1], args[2], args[3], args[4], pairs)
        sys.exit(0)
    sys.exit(refused(int(args[0]), *args[1:]))
