import { AuthenticationError, ParleyError } from "./errors.js";

/** A signed-in person's pair of tokens (what /v1/auth/login and /refresh answer). */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/**
 * Where a session's tokens live between page loads or runs (localStorage, a file). Every client given
 * the same store acts as one session: a renewal made by one (another browser tab) is picked up by the
 * others instead of spending the rotated refresh token again, which the server would take for theft.
 */
export interface TokenStore {
  get(): TokenPair | null;
  /** Called with every new pair, and with null when the session ends. */
  set(pair: TokenPair | null): void;
}

export type AuthCall = (path: "/v1/auth/login" | "/v1/auth/refresh", body: Record<string, string>) => Promise<TokenPair>;

/**
 * The credential a request carries. An API key is sent as it is. A person's session signs in lazily
 * with e-mail and password and refreshes when the server says `token_expired`: one refresh however many
 * requests met the expiry at once, and when it fails every one of them gets that same error.
 */
export class Credentials {
  private access: string | null;
  private refresh: string | null;
  private pending: Promise<void> | null = null;
  /** Renewals that failed so far, and the last one's token and error (see renew). */
  private failures = 0;
  private lastFailure: { used: string | null; error: unknown } | null = null;

  constructor(
    private readonly options: { apiKey?: string; email?: string; password?: string; accessToken?: string; refreshToken?: string; tokenStore?: TokenStore },
    private readonly call: AuthCall,
  ) {
    const stored = options.accessToken || options.apiKey ? null : (options.tokenStore?.get() ?? null);
    this.access = options.accessToken ?? stored?.access_token ?? null;
    this.refresh = options.refreshToken ?? stored?.refresh_token ?? null;
  }

  get tokens(): TokenPair | null {
    return this.access && this.refresh ? { access_token: this.access, refresh_token: this.refresh } : null;
  }

  /** Whether an expired access token can be replaced. */
  get renewable(): boolean {
    return !this.options.apiKey && this.refresh !== null;
  }

  /** The bearer credential for the next request (signing in first if that is all we have). */
  async bearer(): Promise<string | null> {
    if (this.options.apiKey) return this.options.apiKey;
    if (this.pending) await this.pending; // a renewal under way: wait for it (and share its failure)
    else this.load();
    if (!this.access && this.options.email && this.options.password) await this.once(() => this.login());
    return this.access;
  }

  /** Counts failed renewals: a request notes it with its bearer, and hands it back to renew(). */
  get failedRenewals(): number {
    return this.failures;
  }

  /**
   * The server refused `used` as expired: renew it, unless another request already has. A request that
   * left before a renewal of the same token failed (`failedBefore` older than the count) gets that same
   * error, however late its 401 arrives; a request made after the failure may try again.
   */
  async renew(used: string | null, failedBefore = this.failures): Promise<void> {
    if (this.pending) return this.pending;
    this.load();
    if (used !== this.access) return; // renewed meanwhile, here or by another client of the store
    if (failedBefore < this.failures && this.lastFailure?.used === used) throw this.lastFailure.error;
    return this.once(async () => {
      try {
        // No refresh token yet (a client given only e-mail and password that never signed in): sign in.
        if (!this.refresh) return await this.login();
        this.adopt(await this.call("/v1/auth/refresh", { refresh_token: this.refresh }));
      } catch (caught) {
        const error = caught instanceof ParleyError ? caught : new AuthenticationError(401, { code: "unauthorized", detail: String(caught) }, new Headers());
        this.failures++;
        this.lastFailure = { used, error };
        throw error;
      }
    });
  }

  private async login(): Promise<void> {
    const { email, password } = this.options;
    if (!email || !password) throw new AuthenticationError(401, { code: "unauthorized", detail: "the session expired and there is no way to renew it" }, new Headers());
    this.adopt(await this.call("/v1/auth/login", { email, password }));
  }

  /** Acts with this pair from now on (what register, login and refresh answered), unless the client uses an API key. */
  adopt(pair: TokenPair): void {
    if (this.options.apiKey) return;
    this.access = pair.access_token;
    this.refresh = pair.refresh_token;
    this.options.tokenStore?.set(pair);
  }

  /** Forgets the session (what logout does); a client with e-mail and password signs in again on next use. */
  clear(): void {
    if (this.options.apiKey) return;
    this.access = null;
    this.refresh = null;
    this.options.tokenStore?.set(null);
  }

  /** Takes the store's pair when another client of it changed it. */
  private load(): void {
    if (!this.options.tokenStore || this.options.apiKey) return;
    const stored = this.options.tokenStore.get();
    this.access = stored?.access_token ?? null;
    this.refresh = stored?.refresh_token ?? null;
  }

  /** Runs `work` once for every caller that arrives while it runs; all of them share its outcome. */
  private once(work: () => Promise<void>): Promise<void> {
    this.pending ??= work().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }
}
