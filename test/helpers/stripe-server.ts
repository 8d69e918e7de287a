// A local Stripe: the parts of its public REST API that top-ups use (Checkout Sessions, PaymentIntents,
// a customer's payment methods), form-encoded requests, bearer secret keys, Idempotency-Key replays,
// Stripe's error bodies, and webhook events signed by the `stripe` library's own test-header helper.
// What a payer does on the Checkout page (pay, abandon) is a method the test calls.
import { randomBytes } from "node:crypto";
import Stripe from "stripe";

const rand = (n = 14) => randomBytes(n).toString("base64url").replace(/[-_]/g, "x").slice(0, n);
const unix = () => Math.floor(Date.now() / 1000);

type Json = Record<string, any>;

/** Stripe's bracket form encoding back into objects and arrays (`line_items[0][price_data][currency]`). */
export function parseStripeForm(body: string): Json {
  const root: Json = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.split(/[[\]]+/).filter(Boolean);
    let node: any = root;
    keys.forEach((key, i) => {
      if (i === keys.length - 1) node[key] = value;
      else node = node[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    });
  }
  return root;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(body.error?.message);
  }
}

const invalid = (message: string, param?: string) => new StripeApiError(400, { error: { type: "invalid_request_error", message, param, code: param ? "parameter_invalid" : undefined } });
const missing = (param: string) => new StripeApiError(400, { error: { type: "invalid_request_error", code: "parameter_missing", message: `Missing required param: ${param}.`, param } });

export interface Customer {
  id: string;
  cards: { id: string; decline: string | null }[];
}

export interface WebhookDelivery {
  event: Json;
  status: number;
  body: string;
}

export class FakeStripe {
  readonly secretKey = `sk_test_${rand(24)}`;
  readonly webhookSecret = `whsec_${rand(32)}`;
  readonly sessions = new Map<string, Json>();
  readonly intents = new Map<string, Json>();
  readonly customers = new Map<string, Customer>();
  /** Every API request, for assertions (method, path, params, idempotency key). */
  readonly requests: { method: string; path: string; params: Json; idempotencyKey: string | null }[] = [];
  readonly deliveries: WebhookDelivery[] = [];
  /** Where events go (the Parley under test's /v1/payments/webhook/stripe); null sends none. */
  webhookUrl: string | null = null;
  /** Make the next API requests fail as Stripe does when it is down. */
  failNext = 0;
  private readonly idempotent = new Map<string, { params: string; status: number; body: Json }>();
  private readonly stripe = new Stripe("sk_test_unused");
  private readonly server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => this.handle(request) });

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Settings that point a Parley at this Stripe. */
  settings(): Record<string, string> {
    return { stripeSecretKey: this.secretKey, stripeWebhookSecret: this.webhookSecret, stripeApiUrl: this.url };
  }

  stop(): void {
    this.server.stop(true);
  }

  // ——— what the payer does ———

  /** The payer pays the Checkout page with a card (declining later off-session if `decline` is set). */
  async pay(sessionId: string, options: { decline?: string | null; deliver?: boolean } = {}): Promise<Json> {
    const session = this.sessions.get(sessionId)!;
    if (session.status !== "open") throw new Error(`session ${sessionId} is ${session.status}`);
    let customer = session.customer ? this.customers.get(session.customer)! : null;
    if (!customer && session.customer_creation === "always") {
      customer = { id: `cus_${rand()}`, cards: [] };
      this.customers.set(customer.id, customer);
    }
    const card = { id: `pm_${rand()}`, decline: options.decline ?? null };
    if (customer && session.payment_intent_data?.setup_future_usage) customer.cards.unshift(card);
    const intent = this.newIntent({ amount: session.amount_total, currency: session.currency, customer: customer?.id ?? null, payment_method: card.id, metadata: session.payment_intent_data?.metadata ?? {}, status: "succeeded" });
    Object.assign(session, { status: "complete", payment_status: "paid", customer: customer?.id ?? null, payment_intent: intent.id, url: null });
    const event = this.event("checkout.session.completed", session);
    if (options.deliver !== false) await this.deliver(event);
    return event;
  }

  /** Stripe expires an abandoned Checkout. */
  async expire(sessionId: string, options: { deliver?: boolean } = {}): Promise<Json> {
    const session = this.sessions.get(sessionId)!;
    Object.assign(session, { status: "expired", url: null });
    const event = this.event("checkout.session.expired", session);
    if (options.deliver !== false) await this.deliver(event);
    return event;
  }

  /** A Stripe event around an object, as Stripe sends it. */
  event(type: string, object: Json): Json {
    return { id: `evt_${rand(24)}`, object: "event", api_version: "2024-06-20", created: unix(), data: { object: structuredClone(object) }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type };
  }

  /** The Stripe-Signature header for a payload, from the stripe library's own helper. */
  signature(payload: string, options: { timestamp?: number; secret?: string } = {}): Promise<string> {
    // Under Bun the library loads its web build, whose (SubtleCrypto) signing is asynchronous.
    return this.stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? this.webhookSecret, timestamp: options.timestamp });
  }

  /** Sends an event to the webhook URL as Stripe does; `payload`/`header` override for forgeries and replays. */
  async deliver(event: Json, options: { payload?: string; header?: string } = {}): Promise<WebhookDelivery> {
    const payload = options.payload ?? JSON.stringify(event, null, 2);
    const response = await fetch(this.webhookUrl!, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)", "stripe-signature": options.header ?? (await this.signature(payload)) },
      body: payload,
    });
    const delivery = { event, status: response.status, body: await response.text() };
    this.deliveries.push(delivery);
    return delivery;
  }

  // ——— the API ———

  private async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const raw = request.method === "POST" ? await request.text() : "";
    const params = request.method === "POST" ? parseStripeForm(raw) : Object.fromEntries(url.searchParams);
    const idempotencyKey = request.headers.get("idempotency-key");
    this.requests.push({ method: request.method, path: url.pathname, params, idempotencyKey });
    try {
      if (request.headers.get("authorization") !== `Bearer ${this.secretKey}`) {
        throw new StripeApiError(401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${request.headers.get("authorization")?.slice(7, 15) ?? ""}****` } });
      }
      if (this.failNext > 0) {
        this.failNext--;
        throw new StripeApiError(500, { error: { type: "api_error", message: "An unknown error occurred" } });
      }
      if (request.method === "POST" && idempotencyKey) {
        const seen = this.idempotent.get(idempotencyKey);
        if (seen && seen.params !== raw) throw new StripeApiError(400, { error: { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with.` } });
        if (seen) return Response.json(seen.body, { status: seen.status, headers: { "idempotent-replayed": "true" } });
        const answer = this.route(request.method, url.pathname, params);
        this.idempotent.set(idempotencyKey, { params: raw, status: 200, body: answer });
        return Response.json(answer);
      }
      return Response.json(this.route(request.method, url.pathname, params));
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      if (request.method === "POST" && idempotencyKey && error.status !== 401 && error.status < 500) this.idempotent.set(idempotencyKey, { params: raw, status: error.status, body: error.body });
      return Response.json(error.body, { status: error.status });
    }
  }

  private route(method: string, path: string, params: Json): Json {
    let match: RegExpExecArray | null;
    if (method === "POST" && path === "/v1/checkout/sessions") return this.createSession(params);
    if (method === "GET" && (match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) return this.found(this.sessions, match[1], "checkout.session");
    if (method === "POST" && path === "/v1/payment_intents") return this.createIntent(params);
    if (method === "GET" && (match = /^\/v1\/payment_intents\/([^/]+)$/.exec(path))) return this.found(this.intents, match[1], "payment_intent");
    if (method === "GET" && (match = /^\/v1\/customers\/([^/]+)\/payment_methods$/.exec(path))) {
      const customer = this.customers.get(match[1]);
      if (!customer) throw new StripeApiError(404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such customer: '${match[1]}'`, param: "customer" } });
      return { object: "list", url: path, has_more: false, data: customer.cards.map((card) => ({ id: card.id, object: "payment_method", type: "card", customer: customer.id, card: { brand: "visa", last4: card.decline ? "0341" : "4242" } })) };
    }
    throw new StripeApiError(404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } });
  }

  private found(map: Map<string, Json>, id: string, kind: string): Json {
    const object = map.get(id);
    if (!object) throw new StripeApiError(404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${kind}: '${id}'`, param: "id" } });
    return object;
  }

  private createSession(p: Json): Json {
    if (!p.mode) throw missing("mode");
    if (p.mode !== "payment") throw invalid("This fake supports mode=payment only.", "mode");
    if (!p.success_url) throw missing("success_url");
    const items: Json[] = p.line_items ?? [];
    if (!items.length) throw missing("line_items");
    let total = 0;
    let currency: string | null = null;
    items.forEach((item, i) => {
      const data = item.price_data;
      if (!data) throw missing(`line_items[${i}][price_data]`);
      if (!/^[a-z]{3}$/.test(data.currency ?? "")) throw invalid("Invalid currency", `line_items[${i}][price_data][currency]`);
      if (!/^\d+$/.test(data.unit_amount ?? "")) throw invalid("Invalid integer", `line_items[${i}][price_data][unit_amount]`);
      if (!data.product_data?.name) throw missing(`line_items[${i}][price_data][product_data][name]`);
      total += Number(data.unit_amount) * Number(item.quantity ?? 1);
      currency = data.currency;
    });
    if (total < 50) throw invalid("The Checkout Session's total amount due must add up to at least $0.50 usd", "line_items");
    if (p.customer && !this.customers.has(p.customer)) throw invalid(`No such customer: '${p.customer}'`, "customer");
    if (p.customer && p.customer_creation) throw invalid("You may only specify one of these parameters: customer, customer_creation.", "customer_creation");
    const expiresAt = p.expires_at ? Number(p.expires_at) : unix() + 86_400;
    if (expiresAt < unix() + 1800 - 5 || expiresAt > unix() + 86_400 + 5) throw invalid("The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.", "expires_at");
    const id = `cs_test_${rand(40)}`;
    const session = {
      id,
      object: "checkout.session",
      amount_subtotal: total,
      amount_total: total,
      cancel_url: p.cancel_url ?? null,
      client_reference_id: p.client_reference_id ?? null,
      created: unix(),
      currency,
      customer: p.customer ?? null,
      customer_creation: p.customer_creation ?? null,
      expires_at: expiresAt,
      livemode: false,
      metadata: p.metadata ?? {},
      mode: "payment",
      payment_intent: null,
      payment_intent_data: p.payment_intent_data ?? null,
      payment_status: "unpaid",
      status: "open",
      success_url: p.success_url,
      url: `https://checkout.stripe.com/c/pay/${id}`,
    };
    this.sessions.set(id, session);
    // What Stripe returns has no payment_intent_data (a create-only parameter); the fake keeps it for pay().
    const { payment_intent_data: _, ...shown } = session;
    return shown;
  }

  private createIntent(p: Json): Json {
    if (!p.amount) throw missing("amount");
    if (!p.currency) throw missing("currency");
    const customer = p.customer ? this.customers.get(p.customer) : null;
    if (p.customer && !customer) throw invalid(`No such customer: '${p.customer}'`, "customer");
    const card = customer?.cards.find((c) => c.id === p.payment_method);
    if (p.payment_method && !card) throw invalid(`No such PaymentMethod: '${p.payment_method}'`, "payment_method");
    if (p.confirm !== "true" || p.off_session !== "true") throw invalid("This fake supports confirm=true off_session=true only.", "confirm");
    const intent = this.newIntent({ amount: Number(p.amount), currency: p.currency, customer: customer?.id ?? null, payment_method: p.payment_method, metadata: p.metadata ?? {}, status: card?.decline ? "requires_payment_method" : "succeeded" });
    if (card?.decline) {
      intent.last_payment_error = { type: "card_error", code: "card_declined", decline_code: card.decline, message: "Your card has insufficient funds." };
      void this.deliverLater(this.event("payment_intent.payment_failed", intent));
      throw new StripeApiError(402, { error: { ...intent.last_payment_error, payment_intent: intent } });
    }
    void this.deliverLater(this.event("payment_intent.succeeded", intent));
    return intent;
  }

  private newIntent(fields: Json): Json {
    const intent = { id: `pi_${rand(24)}`, object: "payment_intent", created: unix(), livemode: false, last_payment_error: null, ...fields };
    this.intents.set(intent.id, intent);
    return intent;
  }

  /** Stripe's event usually arrives after the API answer: send it on the next turn. */
  private async deliverLater(event: Json): Promise<void> {
    if (!this.webhookUrl) return;
    await Bun.sleep(50);
    await this.deliver(event).catch(() => undefined);
  }
}
