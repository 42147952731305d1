// Nacos' default auth in the fake: login (v1 `/nacos/v1/auth/login`, Nacos 3 `/nacos/v3/auth/user/login`) issues an
// accessToken with a TTL; every other request needs a live one (`accessToken` parameter) or gets 403.
import { randomBytes } from 'node:crypto';
import type { Answer, RequestRecord } from './server.ts';

export class FakeNacosAuth {
  /** TTL announced with each token, seconds. */
  tokenTtl = 18_000;
  private readonly tokens = new Set<string>();
  logins = 0;

  constructor(
    private readonly username: string,
    private readonly password: string,
  ) {}

  /** Forgets every issued token (as after expiry or a server restart). */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** The answer to a login or a refused request; undefined lets the request through. */
  check(r: RequestRecord, loginPaths: readonly string[]): Answer | undefined {
    if (r.method === 'POST' && loginPaths.includes(r.path)) {
      if (r.query['username'] !== this.username || r.query['password'] !== this.password) {
        return { status: 403, body: 'unknown user!' };
      }
      this.logins++;
      const token = randomBytes(12).toString('hex');
      this.tokens.add(token);
      return { status: 200, body: { accessToken: token, tokenTtl: this.tokenTtl, globalAdmin: false } };
    }
    if (this.tokens.has(r.query['accessToken'] ?? '')) return undefined;
    return {
      status: 403,
      body: {
        timestamp: '2026-01-01T00:00:00.000+00:00',
        status: 403,
        error: 'Forbidden',
        message: 'user not found!',
        path: r.path,
      },
    };
  }
}
