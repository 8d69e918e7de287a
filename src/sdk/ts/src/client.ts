import { Credentials, type TokenPair, type TokenStore } from "./auth.js";
import { APIConnectionError, APITimeoutError, errorFor, ParleyError, RateLimitError } from "./errors.js";
import { type Page, PagePromise } from "./pagination.js";

export interface ClientOptions {
  /** Where Parley answers; default `PARLEY_URL` from the environment, else http://localhost:8080. */
  baseUrl?: string;
  /** An API key (`sk_…`); default `PARLEY_API_KEY` from the environment. */
  apiKey?: string;
  /** A person's sign-in instead of a key: the client logs in on first use and renews its session itself. */
  email?: string;
  password?: string;
  /** A session you already hold (renewed with the refresh token when it expires). */
  accessToken?: string;
  refreshToken?: string;
  /** Keeps the session's tokens across page loads or runs, shared with other clients of the same store. */
  tokenStore?: TokenStore;
  /** Act in this workspace (`X-Workspace-Id`), for a person who belongs to several. */
  workspaceId?: string;
  /** Retries after 429, 5xx and lost connections, for requests that are safe to repeat (default 2). */
  maxRetries?: number;
  /** Longest wait between tries, whatever `Retry-After` says (default 60 s). */
  maxRetryDelayMs?: number;
  /** Per-try time-out (default 60 s). */
  timeoutMs?: number;
  /** A fetch of your own (default the global one). */
  fetch?: Fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key`; POSTs get a fresh one per call by default, kept across its retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

/** The part of `fetch` this library uses. */
export type Fetch = (input: URL, init: { method: string; headers: Record<string, string>; body?: RequestBody; signal: AbortSignal }) => Promise<Response>;

type RequestBody = string | FormData | Blob | Uint8Array;

export type ResponseKind = "json" | "text" | "binary" | "none";

/** One call as the generated resources describe it. */
export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: object;
  /** A JSON body, a multipart form, or raw content with its type. */
  json?: unknown;
  form?: FormData;
  content?: { body: RequestBody; type: string };
  response: ResponseKind;
}

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.[name];
}

/** A random UUID wherever this runs (WebCrypto where there is one). */
export function uuid(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (c) => {
    const r = (Math.random() * 16) | 0;
    return (c === "x" ? r : (r & 0x3) | 0x8).toString(16);
  });
}

/** The transport every resource shares: credentials, retries, errors, pagination. */
export class ApiClient {
  readonly baseUrl: string;
  /** Sent as `X-Workspace-Id` (a person's session acting in one of their workspaces); may change between calls. */
  workspaceId: string | null;
  private readonly credentials: Credentials;
  private readonly fetchImpl: Fetch;

  constructor(private readonly options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("PARLEY_URL") ?? "http://localhost:8080").replace(/\/+$/, "");
    this.workspaceId = options.workspaceId ?? null;
    const apiKey = options.apiKey ?? (options.email || options.accessToken ? undefined : env("PARLEY_API_KEY"));
    this.credentials = new Credentials({ ...options, apiKey }, (path, body) => this.request<TokenPair>({ method: "POST", path, json: body, response: "json" }, {}, false));
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init as RequestInit));
  }

  /** The session's current tokens (null with an API key). */
  get tokens(): TokenPair | null {
    return this.credentials.tokens;
  }

  async request<T>(spec: RequestSpec, options: RequestOptions = {}, authenticate = true): Promise<T> {
    const maxRetries = options.maxRetries ?? this.options.maxRetries ?? 2;
    const idempotencyKey = spec.method === "POST" && !spec.path.startsWith("/v1/auth/") ? (options.idempotencyKey ?? uuid()) : options.idempotencyKey;
    // Safe to send again: reads, PATCH/PUT/DELETE, and POSTs the server de-duplicates by key.
    const repeatable = spec.method !== "POST" || idempotencyKey !== undefined;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const bearer = authenticate ? await this.credentials.bearer() : null;
      const failedRenewals = this.credentials.failedRenewals;
      let response: Response;
      try {
        response = await this.send(spec, options, bearer, idempotencyKey);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (repeatable && attempt < maxRetries) {
          await sleep(backoff(attempt), options.signal);
          continue;
        }
        throw error;
      }
      if (response.ok) {
        const value = await read(response, spec.response);
        // `client.auth.login(...)` (and register, refresh) signs the client in, as the constructor's e-mail and password would.
        if (authenticate && TOKEN_ISSUERS.has(spec.path) && isTokenPair(value)) this.credentials.adopt(value);
        if (authenticate && spec.path === LOGOUT) this.credentials.clear();
        return value as T;
      }
      const body = await read(response, "json").catch(() => null);
      const error = errorFor(response.status, body, response.headers);
      if (response.status === 401 && error.code === "token_expired" && authenticate && !renewed && this.credentials.renewable) {
        renewed = true;
        await this.credentials.renew(bearer, failedRenewals);
        attempt--; // renewing is not a retry
        continue;
      }
      const retryable = response.status === 429 || (response.status >= 500 && repeatable);
      if (retryable && attempt < maxRetries) {
        const wait = error instanceof RateLimitError && error.retryAfter !== null ? error.retryAfter * 1000 : backoff(attempt);
        await sleep(Math.min(wait, this.options.maxRetryDelayMs ?? 60_000), options.signal);
        continue;
      }
      throw error;
    }
  }

  /** A list operation: `await` for the first page, `for await` for every item. */
  list<T>(spec: RequestSpec, options: RequestOptions = {}): PagePromise<T> {
    return new PagePromise<T>((cursor) => this.request<Page<T>>({ ...spec, query: { ...spec.query, ...(cursor ? { cursor } : {}) } }, options));
  }

  private async send(spec: RequestSpec, options: RequestOptions, bearer: string | null, idempotencyKey: string | undefined): Promise<Response> {
    const url = new URL(this.baseUrl + spec.path);
    for (const [name, value] of Object.entries((spec.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json, */*;q=0.5", ...this.options.headers, ...options.headers };
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (this.workspaceId) headers["x-workspace-id"] = this.workspaceId;
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    let body: RequestBody | undefined;
    if (spec.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.json);
    } else if (spec.form) body = spec.form;
    else if (spec.content) {
      headers["content-type"] = spec.content.type;
      body = spec.content.body;
    }
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const onAbort = () => timeout.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.fetchImpl(url, { method: spec.method, headers, body, signal: timeout.signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (timeout.signal.aborted) throw new APITimeoutError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`);
      throw new APIConnectionError(`${spec.method} ${spec.path}: ${(error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
}

const TOKEN_ISSUERS = new Set(["/v1/auth/register", "/v1/auth/login", "/v1/auth/refresh"]);
const LOGOUT = "/v1/auth/logout";

function isTokenPair(value: unknown): value is TokenPair {
  return !!value && typeof value === "object" && typeof (value as TokenPair).access_token === "string" && typeof (value as TokenPair).refresh_token === "string";
}

function backoff(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2);
}

async function read(response: Response, kind: ResponseKind): Promise<unknown> {
  if (kind === "none" || response.status === 204) {
    await response.body?.cancel();
    return undefined;
  }
  if (kind === "binary") return new Uint8Array(await response.arrayBuffer());
  const text = await response.text();
  // An operation that answers JSON or text (a transcript with `format: "text"`) is read as what came.
  if (kind === "text" || !/json/.test(response.headers.get("content-type") ?? "json")) return text;
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ParleyError(`expected JSON from the server, got: ${text.slice(0, 200)}`);
  }
}
