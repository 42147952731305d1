// Nacos' default auth: log in with username and password, attach the accessToken to every request, log in again
// before the token's TTL runs out or after a 401/403 (nacos.io "Configure Access Credentials").
import { isPlainObject } from '../../util/json.ts';
import { NacosApiError, type NacosHttp } from './http.ts';

export interface NacosCredentials {
  readonly username: string;
  readonly password: string;
}

/** Nacos 3's login path first, then the 1.x/2.x one (when the first is not found). */
const LOGIN_PATHS = ['/v3/auth/user/login', '/v1/auth/login'];

export class NacosAuth {
  private token: { readonly value: string; readonly refreshAt: number } | undefined;
  private loginPath: string | undefined;
  private loggingIn: Promise<string> | undefined;

  constructor(
    private readonly http: NacosHttp,
    private readonly credentials: NacosCredentials,
    private readonly now: () => number,
  ) {}

  /** A valid accessToken, logging in when there is none or it is at 80 % of its TTL (one login at a time). */
  async accessToken(signal: AbortSignal): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return this.token.value;
    this.token = undefined;
    this.loggingIn ??= this.login(signal).finally(() => {
      this.loggingIn = undefined;
    });
    return this.loggingIn;
  }

  private async login(signal: AbortSignal): Promise<string> {
    const paths = this.loginPath ? [this.loginPath] : LOGIN_PATHS;
    for (const path of paths) {
      let body: unknown;
      try {
        body = await this.http.json('POST', path, { ...this.credentials }, signal);
      } catch (err) {
        if (err instanceof NacosApiError && err.status === 404 && path !== paths[paths.length - 1]) continue;
        throw new NacosApiError(
          `nacos login as ${this.credentials.username} failed: ${err instanceof Error ? err.message : String(err)}`,
          err instanceof NacosApiError ? err.status : undefined,
          { cause: err },
        );
      }
      const value = isPlainObject(body) ? body['accessToken'] : undefined;
      if (typeof value !== 'string' || value === '') {
        throw new NacosApiError(`${this.http.where('POST', path)}: the answer has no accessToken`, 200);
      }
      const ttlMs =
        isPlainObject(body) && typeof body['tokenTtl'] === 'number' ? body['tokenTtl'] * 1000 : 18_000_000;
      this.loginPath = path;
      this.token = { value, refreshAt: this.now() + ttlMs * 0.8 };
      return value;
    }
    throw new NacosApiError('nacos: no login path answered', undefined);
  }

  /** Forgets the token (the server refused it); the next request logs in again. */
  invalidate(): void {
    this.token = undefined;
  }
}
