"""An independent Istio CA client: Debian's python3-grpcio (C-core, BoringSSL) and python3-protobuf.

The messages are istio.v1.auth.IstioCertificateRequest/Response built from a FileDescriptorProto constructed here
(no protoc, no generated code); metadata (field 4, a google.protobuf.Struct) is left out.

  istio_ca_client.py PORT ROOT SERVER_NAME TOKEN_FILE CSR_FILE TTL_SECONDS
      calls CreateCertificate; prints {"chain": [...]} or {"code": NAME, "details": ...} as one JSON line
"""
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def build_messages():
    fd = descriptor_pb2.FileDescriptorProto(name="mini_ca.proto", package="istio.v1.auth", syntax="proto3")
    req = fd.message_type.add(name="IstioCertificateRequest")
    req.field.add(name="csr", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    req.field.add(name="validity_duration", number=3, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    resp = fd.message_type.add(name="IstioCertificateResponse")
    resp.field.add(name="cert_chain", number=1, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return {n: factory.GetPrototype(pool.FindMessageTypeByName("istio.v1.auth." + n))
            for n in ("IstioCertificateRequest", "IstioCertificateResponse")}


M = build_messages()


def main(port, root, server_name, token_file, csr_file, ttl):
    read = lambda p: open(p, "rb").read()
    creds = grpc.ssl_channel_credentials(root_certificates=read(root))
    ch = grpc.secure_channel("127.0.0.1:%d" % port, creds,
                             options=[("grpc.ssl_target_name_override", server_name)])
    call = ch.unary_unary("/istio.v1.auth.IstioCertificateService/CreateCertificate",
                          request_serializer=lambda m: m.SerializeToString(),
                          response_deserializer=M["IstioCertificateResponse"].FromString)
    token = read(token_file).decode().strip()
    try:
        resp = call(M["IstioCertificateRequest"](csr=read(csr_file).decode(), validity_duration=ttl),
                    metadata=[("authorization", "Bearer " + token)], timeout=10)
        print(json.dumps({"chain": list(resp.cert_chain)}), flush=True)
    except grpc.RpcError as e:
        print(json.dumps({"code": e.code().name, "details": e.details()}), flush=True)
    finally:
        ch.close()


if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]), a[1], a[2], a[3], a[4], int(a[5]))
