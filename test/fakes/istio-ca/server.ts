// A fake Istio CA: a grpc-js server for `istio.v1.auth.IstioCertificateService/CreateCertificate` over TLS. Like
// istiod it authenticates the caller by its bearer token (audience `istio-ca`, else UNAUTHENTICATED), takes the
// identity from the token (not from the CSR), checks the CSR's signature (INVALID_ARGUMENT otherwise) and signs a
// certificate for `spiffe://<trust domain>/ns/<ns>/sa/<sa>` with the lifetime asked for. The chain is the leaf
// then the root, as istiod answers.
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import forge from 'node-forge';
import { caProtos, CREATE_CERTIFICATE_METHOD } from '../../../src/identity/ca-client.ts';
import { signWithNodeCrypto } from '../../../src/kit/certs/forge-sign.ts';
import { generateDevCertificates, type DevCertPems } from '../../../src/tools/dev-certs.ts';
import { testCa } from '../test-ca.ts';
import { tokenIdentity } from './token.ts';

export interface FakeIstioCaOptions {
  /** The signing CA (default the shared test CA). */
  readonly issuer?: DevCertPems;
  readonly trustDomain?: string;
  /** The name the fake's serving certificate is valid for (default `istiod.istio-system.svc`). */
  readonly serverName?: string;
}

export interface CaRequest {
  readonly authorization: string | undefined;
  readonly validitySeconds: number;
  /** URI SANs requested in the CSR. */
  readonly csrUris: readonly string[];
  /** The outcome: the SPIFFE ID issued, or the gRPC status name. */
  readonly outcome: string;
}

interface Request {
  csr: string;
  validityDuration: number;
}

const UNAVAILABLE = { code: grpc.status.UNAVAILABLE, details: 'the CA is unavailable' };

export class FakeIstioCa {
  readonly requests: CaRequest[] = [];
  /** notBefore of the certificates issued (ms since the epoch); tests on a ManualClock set it to the clock. */
  now: () => number = () => Date.now();
  /** While true every call fails with UNAVAILABLE. */
  unavailable = false;
  /** The signing CA; replace it to rotate the mesh root. */
  issuer: DevCertPems;
  readonly trustDomain: string;
  readonly serverName: string;
  private readonly server = new grpc.Server();
  private port = 0;

  private constructor(options: FakeIstioCaOptions) {
    this.issuer = options.issuer ?? testCa();
    this.trustDomain = options.trustDomain ?? 'cluster.local';
    this.serverName = options.serverName ?? 'istiod.istio-system.svc';
    const { request, response } = caProtos();
    this.server.addService(
      {
        CreateCertificate: {
          path: CREATE_CERTIFICATE_METHOD,
          requestStream: false,
          responseStream: false,
          requestSerialize: (r: Request) => Buffer.from(request.encode(request.fromObject(r)).finish()),
          requestDeserialize: (b: Buffer) =>
            request.toObject(request.decode(b), { longs: Number }) as Request,
          responseSerialize: (r: { certChain: string[] }) =>
            Buffer.from(response.encode(response.fromObject(r)).finish()),
          responseDeserialize: (b: Buffer) => response.decode(b),
          originalName: 'createCertificate',
        },
      },
      {
        CreateCertificate: (call: grpc.ServerUnaryCall<Request, unknown>, cb: grpc.sendUnaryData<unknown>) =>
          this.create(call, cb),
      },
    );
  }

  /** Serves on 127.0.0.1 with a certificate of `issuer` for `serverName`. */
  static async start(options: FakeIstioCaOptions = {}): Promise<FakeIstioCa> {
    const ca = new FakeIstioCa(options);
    const issuer = ca.issuer;
    const serving = generateDevCertificates({
      issuer: { cert: issuer.ca, key: issuer.caKey },
      extraDnsNames: [ca.serverName],
    });
    const creds = grpc.ServerCredentials.createSsl(
      null,
      [{ private_key: Buffer.from(serving.serverKey), cert_chain: Buffer.from(serving.serverCert) }],
      false,
    );
    ca.port = await new Promise<number>((resolve, reject) =>
      ca.server.bindAsync('127.0.0.1:0', creds, (err, port) => (err ? reject(err) : resolve(port))),
    );
    return ca;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Certificates issued so far. */
  get issued(): number {
    return this.requests.filter((r) => r.outcome.startsWith('spiffe://')).length;
  }

  close(): void {
    this.server.forceShutdown();
  }

  private create(call: grpc.ServerUnaryCall<Request, unknown>, cb: grpc.sendUnaryData<unknown>): void {
    const authorization = call.metadata.get('authorization')[0]?.toString();
    const record = (outcome: string, uris: string[] = []) =>
      this.requests.push({
        authorization,
        validitySeconds: call.request.validityDuration,
        csrUris: uris,
        outcome,
      });
    if (this.unavailable) {
      record('UNAVAILABLE');
      cb(UNAVAILABLE);
      return;
    }
    const who = tokenIdentity(authorization, 'istio-ca');
    if (typeof who === 'string') {
      record('UNAUTHENTICATED');
      cb({ code: grpc.status.UNAUTHENTICATED, details: `authentication failed: ${who}` });
      return;
    }
    let csr: forge.pki.CertificateSigningRequest;
    try {
      csr = forge.pki.certificationRequestFromPem(call.request.csr);
      if (!csr.verify()) throw new Error('bad signature');
    } catch (err) {
      record('INVALID_ARGUMENT');
      cb({ code: grpc.status.INVALID_ARGUMENT, details: `CSR unusable: ${(err as Error).message}` });
      return;
    }
    const id = `spiffe://${this.trustDomain}/ns/${who.namespace}/sa/${who.serviceAccount}`;
    record(id, csrUris(csr));
    const ttl = call.request.validityDuration > 0 ? call.request.validityDuration : 86_400;
    cb(null, { certChain: [this.sign(csr.publicKey!, id, ttl), this.issuer.ca] });
  }

  private sign(publicKey: forge.pki.PublicKey, id: string, ttlSeconds: number): string {
    const ca = forge.pki.certificateFromPem(this.issuer.ca);
    const cert = forge.pki.createCertificate();
    cert.publicKey = publicKey;
    const serial = randomBytes(16);
    serial[0] = (serial[0] ?? 0) & 0x7f;
    cert.serialNumber = serial.toString('hex');
    const now = this.now();
    cert.validity.notBefore = new Date(now);
    cert.validity.notAfter = new Date(now + ttlSeconds * 1000);
    cert.setIssuer(ca.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      { name: 'subjectAltName', critical: true, altNames: [{ type: 6, value: id }] },
    ]);
    const pki = forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 };
    signWithNodeCrypto(cert, () => pki.getTBSCertificate(cert), this.issuer.caKey);
    return forge.pki.certificateToPem(cert);
  }
}

function csrUris(csr: forge.pki.CertificateSigningRequest): string[] {
  const ext = csr.getAttribute({ name: 'extensionRequest' }) as {
    extensions?: { name?: string; altNames?: { type: number; value: string }[] }[];
  } | null;
  const san = ext?.extensions?.find((e) => e.name === 'subjectAltName');
  return (san?.altNames ?? []).filter((a) => a.type === 6).map((a) => a.value);
}
