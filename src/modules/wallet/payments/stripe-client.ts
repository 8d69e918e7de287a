// The few calls of Stripe's REST API that top-ups need, over fetch: form-encoded bodies, bearer
// secret key, an Idempotency-Key on every create so a retried job never charges twice.

export interface StripeSettings {
  secretKey: string;
  /** https://api.stripe.com, or a proxy (or a local test server) that speaks the same API. */
  apiUrl: string;
}

export interface CheckoutSession {
  id: string;
  object: "checkout.session";
  status: "open" | "complete" | "expired";
  payment_status: "paid" | "unpaid" | "no_payment_required";
  amount_total: number | null;
  currency: string | null;
  customer: string | null;
  payment_intent: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string> | null;
  url: string | null;
  expires_at: number;
}

export interface PaymentIntent {
  id: string;
  object: "payment_intent";
  status: string;
  amount: number;
  currency: string;
  customer: string | null;
  metadata: Record<string, string> | null;
  last_payment_error?: { message?: string; code?: string; decline_code?: string } | null;
}

export interface PaymentMethod {
  id: string;
  type: string;
  card?: { brand?: string; last4?: string };
}

/** Stripe said no (card_error, invalid_request_error, …): its message, type and code. */
export class StripeError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    readonly paymentIntent: PaymentIntent | null,
  ) {
    super(message);
  }
}

type Params = { [key: string]: string | number | boolean | undefined | Params | Params[] };

/** Stripe's form encoding: nested objects and arrays as `a[b][0][c]=…`. */
export function formEncode(params: Params, prefix = ""): string[] {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (Array.isArray(value)) value.forEach((item, i) => pairs.push(...formEncode(item, `${name}[${i}]`)));
    else if (typeof value === "object") pairs.push(...formEncode(value, name));
    else pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return pairs;
}

const TIMEOUT_MS = 20_000;

export class StripeClient {
  constructor(private readonly settings: StripeSettings) {}

  createCheckoutSession(params: Params, idempotencyKey: string): Promise<CheckoutSession> {
    return this.request("POST", "/v1/checkout/sessions", params, idempotencyKey);
  }

  retrieveCheckoutSession(id: string): Promise<CheckoutSession> {
    return this.request("GET", `/v1/checkout/sessions/${encodeURIComponent(id)}`);
  }

  createPaymentIntent(params: Params, idempotencyKey: string): Promise<PaymentIntent> {
    return this.request("POST", "/v1/payment_intents", params, idempotencyKey);
  }

  retrievePaymentIntent(id: string): Promise<PaymentIntent> {
    return this.request("GET", `/v1/payment_intents/${encodeURIComponent(id)}`);
  }

  async customerCards(customer: string): Promise<PaymentMethod[]> {
    const list = await this.request<{ data: PaymentMethod[] }>("GET", `/v1/customers/${encodeURIComponent(customer)}/payment_methods?type=card&limit=10`);
    return list.data;
  }

  private async request<T>(method: "GET" | "POST", path: string, params?: Params, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.settings.secretKey}` };
    let body: string | undefined;
    if (method === "POST") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
      body = formEncode(params ?? {}).join("&");
    }
    const response = await fetch(new URL(path, this.settings.apiUrl), { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await response.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      throw new StripeError(`Stripe answered ${response.status} with no JSON`, response.status, "api_error", null, null);
    }
    if (!response.ok) {
      const error = json?.error ?? {};
      throw new StripeError(String(error.message ?? `Stripe answered ${response.status}`), response.status, String(error.type ?? "api_error"), error.code ?? null, error.payment_intent ?? null);
    }
    return json as T;
  }
}
