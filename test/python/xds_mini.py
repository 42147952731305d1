"""What the independent xDS clients (rds_client.py, ads_client.py) share: wire-compatible subsets of Envoy's
discovery messages (envoy/service/discovery/v3/discovery.proto) built from a FileDescriptorProto constructed here
(no protoc), the mTLS channel to the server on loopback, a request queue as a request iterator, and the check that
the server refuses a stream.

Imported by path: the clients run as `python3 test/python/<client>.py`, so this directory is on sys.path.
"""
import json
import queue

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def build_messages(file_name, more, names):
    """The discovery messages (Any, Node, Status, DiscoveryRequest, DiscoveryResponse) and those `more(msg, F)`
    adds, in package `mini` of file `file_name`; returns the classes of `names` by name."""
    fd = descriptor_pb2.FileDescriptorProto(name=file_name, package="mini", syntax="proto3")

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
    more(msg, F)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return {n: factory.GetPrototype(pool.FindMessageTypeByName("mini." + n)) for n in names}


def channel(port, ca, cert=None, key=None):
    read = lambda p: open(p, "rb").read()
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(ca),
        private_key=read(key) if key else None,
        certificate_chain=read(cert) if cert else None,
    )
    return grpc.secure_channel("127.0.0.1:%d" % port, creds,
                               options=[("grpc.ssl_target_name_override", "localhost")])


def discovery_stream(ch, path, response):
    """The state-of-the-world streaming method at `path`, responses decoded as `response`."""
    return ch.stream_stream(
        path,
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=response.FromString,
    )


def requests(q):
    while True:
        item = q.get()
        if item is None:
            return
        yield item


def expect_refused(ch, call, first, say_when_ended):
    """Sends `first` on `call` (a discovery_stream on channel `ch`, closed here) and prints whether the server
    refused the stream, with the status; 0 when it did. A stream that ends without a status prints
    {"refused": false} only when `say_when_ended`."""
    q = queue.Queue()
    q.put(first)
    try:
        for _ in call(requests(q), timeout=10):
            print(json.dumps({"refused": False}), flush=True)
            return 1
    except grpc.RpcError as e:
        print(json.dumps({"refused": True, "code": e.code().name, "details": e.details()}), flush=True)
        return 0
    finally:
        q.put(None)
        ch.close()
    if say_when_ended:
        print(json.dumps({"refused": False}), flush=True)
    return 1
