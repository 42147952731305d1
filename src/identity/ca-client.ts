/**
 * One call of Istio's CA: `istio.v1.auth.IstioCertificateService/CreateCertificate` over TLS, verifying the CA
 * against the mesh root file for the name `serverName` (istiod's certificate names `istiod.<ns>.svc`, as the
 * Istio agent checks), authenticated with `authorization: Bearer <token>` (the projected service account token,
 * audience `istio-ca`). The root and the token are read from their files at every call: both rotate.
 */
import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { loadProtoRoot, projectProtosDir } from '../util/protos.ts';

export const CREATE_CERTIFICATE_METHOD = '/istio.v1.auth.IstioCertificateService/CreateCertificate';
const PROTO = 'istio/security/v1alpha1/ca.proto';

export interface CaClientOptions {
  /** `host:port` of the CA (istiod, port 15012). */
  readonly address: string;
  readonly rootCertFile: string;
  readonly tokenFile: string;
  /** The name the CA's certificate must be valid for. */
  readonly serverName: string;
  /** Deadline of one call, ms (default 10 000). */
  readonly timeoutMs?: number;
}

interface CaProtos {
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
}

let protos: CaProtos | undefined;

/** The request and response types (loaded once per process). */
export function caProtos(): CaProtos {
  if (protos) return protos;
  const root = loadProtoRoot([PROTO], [projectProtosDir(PROTO)]);
  protos = {
    request: root.lookupType('istio.v1.auth.IstioCertificateRequest'),
    response: root.lookupType('istio.v1.auth.IstioCertificateResponse'),
  };
  return protos;
}

async function readInput(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new Error(`cannot read the ${what} ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Sends the CSR; resolves with the PEM chain (leaf first), rejects with the file, transport or CA error. */
export async function createCertificate(
  o: CaClientOptions,
  csrPem: string,
  validitySeconds: number,
): Promise<string[]> {
  const root = await readInput(o.rootCertFile, 'CA root certificate');
  const token = (await readInput(o.tokenFile, 'token file')).toString('utf8').trim();
  const { request, response } = caProtos();
  const client = new grpc.Client(o.address, grpc.credentials.createSsl(root), {
    'grpc.ssl_target_name_override': o.serverName,
    'grpc.default_authority': o.serverName,
  });
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  try {
    const answer = await new Promise<{ certChain?: string[] }>((resolve, reject) => {
      client.makeUnaryRequest(
        CREATE_CERTIFICATE_METHOD,
        (req: object) => Buffer.from(request.encode(request.fromObject(req)).finish()),
        (buf: Buffer) => response.toObject(response.decode(buf)) as { certChain?: string[] },
        { csr: csrPem, validityDuration: validitySeconds },
        metadata,
        { deadline: Date.now() + (o.timeoutMs ?? 10_000) },
        (err, value) => (err || !value ? reject(err ?? new Error('no response')) : resolve(value)),
      );
    });
    const chain = (answer.certChain ?? []).map((c) => c.trim()).filter((c) => c !== '');
    if (chain.length === 0) throw new Error(`the CA at ${o.address} returned an empty certificate chain`);
    return chain;
  } finally {
    client.close();
  }
}
