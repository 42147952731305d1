"""An independent MCP-over-xDS client: Debian's python3-grpcio and python3-protobuf.

Messages are wire-compatible subsets of Envoy's DiscoveryRequest/DiscoveryResponse and of Istio's
istio.mcp.v1alpha1.Resource and istio.networking.v1alpha3.ServiceEntry (field numbers from istio/api
mcp/v1alpha1/resource.proto, metadata.proto, networking/v1alpha3/service_entry.proto, workload_entry.proto),
built from a FileDescriptorProto constructed here (no protoc).

  mcp_client.py subscribe PORT TYPE_URL COUNT [CA CERT KEY]
      subscribe, print each response as one JSON line with its ServiceEntries decoded, ACK it; exit after COUNT
      responses; with CA, CERT and KEY (PEM files) over mTLS, verifying the server for `localhost`
"""
import json
import queue
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
OPT, REP = F.LABEL_OPTIONAL, F.LABEL_REPEATED
S, B, I32, U32, I64, E, M = (F.TYPE_STRING, F.TYPE_BYTES, F.TYPE_INT32, F.TYPE_UINT32, F.TYPE_INT64,
                             F.TYPE_ENUM, F.TYPE_MESSAGE)


def build_messages():
    fd = descriptor_pb2.FileDescriptorProto(name="mini_mcp.proto", package="mini", syntax="proto3")

    def add_fields(m, fields):
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name

    def msg(name, fields, maps=()):
        m = fd.message_type.add(name=name)
        for entry_name, value_type in maps:
            entry = m.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            add_fields(entry, [("key", 1, S, OPT, None), ("value", 2, value_type, OPT, None)])
        add_fields(m, fields)
        return m

    msg("Any", [("type_url", 1, S, OPT, None), ("value", 2, B, OPT, None)])
    msg("Timestamp", [("seconds", 1, I64, OPT, None), ("nanos", 2, I32, OPT, None)])
    msg("Node", [("id", 1, S, OPT, None)])
    msg("Status", [("code", 1, I32, OPT, None), ("message", 2, S, OPT, None)])
    msg("DiscoveryRequest", [
        ("version_info", 1, S, OPT, None), ("node", 2, M, OPT, ".mini.Node"),
        ("resource_names", 3, S, REP, None), ("type_url", 4, S, OPT, None),
        ("response_nonce", 5, S, OPT, None), ("error_detail", 6, M, OPT, ".mini.Status"),
    ])
    msg("DiscoveryResponse", [
        ("version_info", 1, S, OPT, None), ("resources", 2, M, REP, ".mini.Any"),
        ("type_url", 4, S, OPT, None), ("nonce", 5, S, OPT, None),
    ])
    msg("Metadata", [
        ("name", 1, S, OPT, None), ("create_time", 2, M, OPT, ".mini.Timestamp"), ("version", 3, S, OPT, None),
        ("labels", 4, M, REP, ".mini.Metadata.LabelsEntry"),
        ("annotations", 5, M, REP, ".mini.Metadata.AnnotationsEntry"),
    ], maps=[("LabelsEntry", S), ("AnnotationsEntry", S)])
    msg("Resource", [("metadata", 1, M, OPT, ".mini.Metadata"), ("body", 2, M, OPT, ".mini.Any")])
    msg("ServicePort", [("number", 1, U32, OPT, None), ("protocol", 2, S, OPT, None), ("name", 3, S, OPT, None),
                        ("target_port", 4, U32, OPT, None)])
    msg("WorkloadEntry", [
        ("address", 1, S, OPT, None), ("ports", 2, M, REP, ".mini.WorkloadEntry.PortsEntry"),
        ("labels", 3, M, REP, ".mini.WorkloadEntry.LabelsEntry"), ("network", 4, S, OPT, None),
        ("locality", 5, S, OPT, None), ("weight", 6, U32, OPT, None), ("service_account", 7, S, OPT, None),
    ], maps=[("PortsEntry", U32), ("LabelsEntry", S)])
    se = msg("ServiceEntry", [
        ("hosts", 1, S, REP, None), ("addresses", 2, S, REP, None), ("ports", 3, M, REP, ".mini.ServicePort"),
        ("location", 4, E, OPT, ".mini.ServiceEntry.Location"),
        ("resolution", 5, E, OPT, ".mini.ServiceEntry.Resolution"),
        ("endpoints", 6, M, REP, ".mini.WorkloadEntry"),
    ])
    loc = se.enum_type.add(name="Location")
    for i, n in enumerate(["MESH_EXTERNAL", "MESH_INTERNAL"]):
        loc.value.add(name=n, number=i)
    res = se.enum_type.add(name="Resolution")
    for i, n in enumerate(["NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN", "DYNAMIC_DNS"]):
        res.value.add(name=n, number=i)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return {n: factory.GetPrototype(pool.FindMessageTypeByName("mini." + n))
            for n in ("DiscoveryRequest", "DiscoveryResponse", "Resource", "ServiceEntry")}


M_ = build_messages()
RESOURCE_URL = "type.googleapis.com/istio.mcp.v1alpha1.Resource"
SE_URL = "type.googleapis.com/istio.networking.v1alpha3.ServiceEntry"
LOCATIONS = ["MESH_EXTERNAL", "MESH_INTERNAL"]
RESOLUTIONS = ["NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN", "DYNAMIC_DNS"]


def decode(any_msg):
    if any_msg.type_url != RESOURCE_URL:
        raise ValueError("unexpected resource type " + any_msg.type_url)
    r = M_["Resource"].FromString(any_msg.value)
    if r.body.type_url != SE_URL:
        raise ValueError("unexpected body type " + r.body.type_url)
    se = M_["ServiceEntry"].FromString(r.body.value)
    return {
        "name": r.metadata.name, "version": r.metadata.version, "labels": dict(r.metadata.labels),
        "hosts": list(se.hosts), "addresses": list(se.addresses),
        "ports": [{"number": p.number, "name": p.name, "protocol": p.protocol} for p in se.ports],
        "location": LOCATIONS[se.location], "resolution": RESOLUTIONS[se.resolution],
        "endpoints": [{"address": e.address, "ports": dict(e.ports), "labels": dict(e.labels),
                       "locality": e.locality, "weight": e.weight, "serviceAccount": e.service_account}
                      for e in se.endpoints],
    }


def requests(q):
    while True:
        item = q.get()
        if item is None:
            return
        yield item


def open_channel(port, tls):
    if not tls:
        return grpc.insecure_channel("127.0.0.1:%d" % port)
    read = lambda p: open(p, "rb").read()
    ca, cert, key = tls
    creds = grpc.ssl_channel_credentials(root_certificates=read(ca), private_key=read(key),
                                         certificate_chain=read(cert))
    return grpc.secure_channel("127.0.0.1:%d" % port, creds,
                               options=[("grpc.ssl_target_name_override", "localhost")])


def subscribe(port, type_url, count, tls=None):
    q = queue.Queue()
    q.put(M_["DiscoveryRequest"](node={"id": "sidecar~10.0.0.9~istiod-py.istio-system~istio-system.svc.cluster.local"},
                                 type_url=type_url))
    ch = open_channel(port, tls)
    call = ch.stream_stream(
        "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=M_["DiscoveryResponse"].FromString,
    )
    seen = 0
    for resp in call(requests(q), timeout=30):
        print(json.dumps({"version": resp.version_info, "nonce": resp.nonce, "typeUrl": resp.type_url,
                          "entries": [decode(a) for a in resp.resources]}), flush=True)
        q.put(M_["DiscoveryRequest"](version_info=resp.version_info, type_url=type_url,
                                     response_nonce=resp.nonce))
        seen += 1
        if seen == count:
            break
    q.put(None)
    ch.close()


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "subscribe":
        subscribe(int(args[0]), args[1], int(args[2]), args[3:6] if len(args) >= 6 else None)
        sys.exit(0)
    sys.exit(2)
