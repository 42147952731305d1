"""An independent RDS client: Debian's python3-grpcio (C-core, BoringSSL) and python3-protobuf.

Messages are wire-compatible subsets of Envoy's, built from a FileDescriptorProto constructed here (no protoc).

  rds_client.py full PORT CA CERT KEY NAME     request NAME, print each response as one JSON line, ACK it;
                                               exits after the second response
  rds_client.py once PORT CA CERT KEY NAME     request NAME, print the first response as one JSON line, exit
  rds_client.py refused PORT CA [CERT KEY]     expect the server to refuse the connection; prints the status
"""
import json
import queue
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

TYPE_URL = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
F = descriptor_pb2.FieldDescriptorProto


def build_messages():
    fd = descriptor_pb2.FileDescriptorProto(name="mini_rds.proto", package="mini", syntax="proto3")

    def msg(name, fields):
        m = fd.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name

    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    s, b, i32, m = F.TYPE_STRING, F.TYPE_BYTES, F.TYPE_INT32, F.TYPE_MESSAGE
    msg("Any", [("type_url", 1, s, opt, None), ("value", 2, b, opt, None)])
    msg("Node", [("id", 1, s, opt, None), ("cluster", 2, s, opt, None)])
    msg("Status", [("code", 1, i32, opt, None), ("message", 2, s, opt, None)])
    msg("DiscoveryRequest", [
        ("version_info", 1, s, opt, None), ("node", 2, m, opt, ".mini.Node"),
        ("resource_names", 3, s, rep, None), ("type_url", 4, s, opt, None),
        ("response_nonce", 5, s, opt, None), ("error_detail", 6, m, opt, ".mini.Status"),
    ])
    msg("DiscoveryResponse", [
        ("version_info", 1, s, opt, None), ("resources", 2, m, rep, ".mini.Any"),
        ("type_url", 4, s, opt, None), ("nonce", 5, s, opt, None),
    ])
    msg("RouteAction", [("cluster", 1, s, opt, None)])
    msg("RouteMatch", [("prefix", 1, s, opt, None)])
    msg("Route", [("match", 1, m, opt, ".mini.RouteMatch"), ("route", 2, m, opt, ".mini.RouteAction"),
                  ("name", 14, s, opt, None)])
    msg("VirtualHost", [("name", 1, s, opt, None), ("domains", 2, s, rep, None), ("routes", 3, m, rep, ".mini.Route")])
    msg("RouteConfiguration", [("name", 1, s, opt, None), ("virtual_hosts", 2, m, rep, ".mini.VirtualHost")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return {n: factory.GetPrototype(pool.FindMessageTypeByName("mini." + n))
            for n in ("DiscoveryRequest", "DiscoveryResponse", "RouteConfiguration")}


M = build_messages()


def channel(port, ca, cert=None, key=None):
    read = lambda p: open(p, "rb").read()
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(ca),
        private_key=read(key) if key else None,
        certificate_chain=read(cert) if cert else None,
    )
    return grpc.secure_channel("127.0.0.1:%d" % port, creds,
                               options=[("grpc.ssl_target_name_override", "localhost")])


def stream_routes(ch):
    return ch.stream_stream(
        "/envoy.service.route.v3.RouteDiscoveryService/StreamRoutes",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=M["DiscoveryResponse"].FromString,
    )


def requests(q):
    while True:
        item = q.get()
        if item is None:
            return
        yield item


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
    q = queue.Queue()
    q.put(M["DiscoveryRequest"](resource_names=["x"], type_url=TYPE_URL))
    ch = channel(port, ca, cert, key)
    try:
        for _ in stream_routes(ch)(requests(q), timeout=10):
            print(json.dumps({"refused": False}), flush=True)
            return 1
    except grpc.RpcError as e:
        print(json.dumps({"refused": True, "code": e.code().name, "details": e.details()}), flush=True)
        return 0
    finally:
        q.put(None)
        ch.close()
    print(json.dumps({"refused": False}), flush=True)
    return 1


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode in ("full", "once"):
        full(int(args[0]), args[1], args[2], args[3], args[4], 2 if mode == "full" else 1)
        sys.exit(0)
    sys.exit(refused(int(args[0]), *args[1:]))
