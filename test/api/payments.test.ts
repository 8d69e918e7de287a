// Top-ups (138-141) against a local server speaking Stripe's API, with events signed by the stripe
// library's own test helper, and offline top-ups the operator settles (150).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sweepAutoRecharge } from "../../src/modules/wallet/payments/auto-recharge.ts";
import { reconcileOverdue } from "../../src/modules/wallet/payments/reconcile.ts";
import { createKey, registerOperator, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";
import { FakeStripe } from "../helpers/stripe-server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { createEndpoint, settle, verifySignatures } from "../helpers/webhooks.ts";

const USD = 1_000_000;
const stripe = new FakeStripe();
const s = serverWithUser("payer", { settings: stripe.settings() });
const receiver = startReceiver();
let endpoint: { id: string; secret: string };
/** The payer's admin key: keys outlive the hours the fake clock is moved by. */
let payer = "";

beforeAll(async () => {
  stripe.webhookUrl = `${s.server.url}/v1/payments/webhook/stripe`;
  payer = (await createKey(s.server.api, s.user.token, "admin")).secret;
  endpoint = await createEndpoint(s.server, payer, `${receiver.url}/payments`, ["payment.succeeded"]);
});
afterAll(() => {
  stripe.stop();
  receiver.stop();
});

const opts = () => ({ token: payer });
const topup = (body: Record<string, unknown>, token = payer) => s.server.api.post("/v1/payments/topup", body, { token });
const balance = async (token = payer) => (await s.server.api.get("/v1/wallet", { token })).body.balance as number;
const payment = async (id: string, token = payer) => (await s.server.api.get(`/v1/payments/${id}`, { token })).body;
const ledgerOf = (paymentId: string) => s.server.ctx.sqlite.prepare("SELECT cause, amount FROM ledger_entries WHERE ref_id = ?").all(paymentId);
const eventsOf = (paymentId: string) =>
  (s.server.ctx.sqlite.prepare("SELECT body FROM events WHERE type = 'payment.succeeded'").all() as { body: string }[]).map((row) => JSON.parse(row.body)).filter((event) => event.data.payment_id === paymentId);

describe("a Stripe top-up", () => {
  test("the wallet says this instance takes card payments", async () => {
    expect((await s.server.api.get("/v1/wallet", opts())).body.card_payments).toBe(true);
  });

  test("checkout, payment, webhook: the wallet is credited once and payment.succeeded is delivered, signed", async () => {
    const before = await balance();
    const created = await topup({ amount: 2500 });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({ object: "payment", provider: "stripe", kind: "topup", status: "pending", amount: 2500, currency: "USD", credit: 25 * USD, ledger_entry_id: null });
    expect(created.body.checkout_url).toStartWith("https://checkout.stripe.com/c/pay/cs_test_");
    expect(Date.parse(created.body.expires_at) - Date.now()).toBeGreaterThan(55 * 60_000);

    // What Stripe was asked: one Checkout Session for this payment, made idempotent by its id.
    const asked = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions" && r.idempotencyKey === id);
    expect(asked).toHaveLength(1);
    expect(asked[0].params).toMatchObject({
      mode: "payment",
      client_reference_id: id,
      customer_creation: "always",
      metadata: { payment_id: id, workspace_id: s.user.workspaceId },
      payment_intent_data: { setup_future_usage: "off_session", metadata: { payment_id: id } },
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "2500", product_data: { name: "Parley credit" } } }],
    });
    expect(asked[0].params.success_url).toContain(`payment=${id}`);
    expect(await balance()).toBe(before);

    const session = [...stripe.sessions.values()].find((x) => x.client_reference_id === id)!;
    const event = await stripe.pay(session.id);
    const delivered = stripe.deliveries.at(-1)!;
    expect(delivered.status).toBe(200);
    expect(JSON.parse(delivered.body)).toEqual({ received: true, duplicate: false, outcome: "applied" });

    const paid = await payment(id);
    expect(paid).toMatchObject({ status: "succeeded", checkout_url: null, failure_reason: null });
    expect(paid.ledger_entry_id).toStartWith("led_");
    expect(paid.completed_at).not.toBeNull();
    expect(await balance()).toBe(before + 25 * USD);
    expect(ledgerOf(id)).toEqual([{ cause: "topup", amount: 25 * USD }]);

    const [outcome] = eventsOf(id);
    expect(outcome).toMatchObject({ event: "payment.succeeded", data: { payment_id: id, provider: "stripe", kind: "topup", amount: 25 * USD, amount_minor: 2500, currency: "USD", balance: before + 25 * USD } });
    await settle(s.server);
    const [request] = (await receiver.waitFor(1)).filter((r) => JSON.parse(r.body).data.payment_id === id);
    expect(JSON.parse(request.body).id).toBe(outcome.id);
    expect(verifySignatures(request, endpoint.secret)).toEqual({ brand: true, standard: true });

    // Stripe retries a delivery it thinks failed: the same event changes nothing.
    const again = await stripe.deliver(event);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ duplicate: true, outcome: "applied" });
    expect(await balance()).toBe(before + 25 * USD);
    expect(eventsOf(id)).toHaveLength(1);

    const history = (await s.server.api.get("/v1/payments/history", opts())).body;
    expect(history.data[0]).toMatchObject({ id, status: "succeeded" });
    const onlyPending = (await s.server.api.get("/v1/payments/history?status=pending", opts())).body;
    expect(onlyPending.data.map((p: any) => p.id)).not.toContain(id);
  });

  test("forged, stale, tampered, replayed and re-ordered webhooks change nothing", async () => {
    const id = (await topup({ amount: 1000 })).body.id;
    const session = [...stripe.sessions.values()].find((x) => x.client_reference_id === id)!;
    const before = await balance();
    const paidEvent = await stripe.pay(session.id, { deliver: false });
    const payload = JSON.stringify(paidEvent);
    const refused = async (header: string | undefined, body = payload) => {
      const res = await fetch(stripe.webhookUrl!, { method: "POST", headers: { "content-type": "application/json", ...(header === undefined ? {} : { "stripe-signature": header }) }, body });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      return ((await res.json()) as { detail: string }).detail;
    };
    expect(await refused(undefined)).toContain("no Stripe-Signature");
    expect(await refused(await stripe.signature(payload, { secret: "whsec_forged" }))).toContain("no signature matches");
    expect(await refused(await stripe.signature(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }))).toContain("tolerance");
    const tampered = payload.replace('"amount_total":1000', '"amount_total":100000');
    expect(tampered).not.toBe(payload);
    expect(await refused(await stripe.signature(payload), tampered)).toContain("no signature matches");
    expect(await refused("t=abc,v1=00")).toContain("timestamp");
    expect((await payment(id)).status).toBe("pending");
    expect(await balance()).toBe(before);

    // Genuine but out of order: the expiry Stripe would never send after payment, then the payment, then the expiry again.
    const reordered = stripe.event("checkout.session.completed", { ...session });
    const completed = await stripe.deliver(paidEvent);
    expect(JSON.parse(completed.body).outcome).toBe("applied");
    const expired = await stripe.deliver(stripe.event("checkout.session.expired", { ...session, status: "expired" }));
    expect(JSON.parse(expired.body)).toMatchObject({ duplicate: false, outcome: "already_final" });
    expect(JSON.parse((await stripe.deliver(reordered)).body).outcome).toBe("already_final");
    expect((await payment(id)).status).toBe("succeeded");
    expect(await balance()).toBe(before + 10 * USD);
    expect(ledgerOf(id)).toHaveLength(1);
    expect(eventsOf(id)).toHaveLength(1);

    // Signed with our secret but not about our payment: a session for another amount or workspace, or no payment at all.
    const other = (await topup({ amount: 5000 })).body.id;
    const otherSession = [...stripe.sessions.values()].find((x) => x.client_reference_id === other)!;
    const wrongAmount = await stripe.deliver(stripe.event("checkout.session.completed", { ...otherSession, status: "complete", payment_status: "paid", amount_total: 500000 }));
    expect(JSON.parse(wrongAmount.body).outcome).toBe("mismatch_amount");
    const wrongWorkspace = await stripe.deliver(stripe.event("checkout.session.completed", { ...otherSession, status: "complete", payment_status: "paid", metadata: { payment_id: other, workspace_id: "ws_other" } }));
    expect(JSON.parse(wrongWorkspace.body).outcome).toBe("mismatch_workspace");
    const unknown = await stripe.deliver(stripe.event("checkout.session.completed", { ...otherSession, metadata: { payment_id: "txn_nope" } }));
    expect(JSON.parse(unknown.body).outcome).toBe("unknown_payment");
    const elsewhere = await stripe.deliver(stripe.event("customer.created", { id: "cus_x", object: "customer" }));
    expect(JSON.parse(elsewhere.body).outcome).toBe("ignored_type");
    expect((await payment(other)).status).toBe("pending");
    expect(await balance()).toBe(before + 10 * USD);

    const notJson = await fetch(stripe.webhookUrl!, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": await stripe.signature("{oops") }, body: "{oops" });
    expect(notJson.status).toBe(400);
    const notStripe = await fetch(stripe.webhookUrl!.replace(/stripe$/, "paypal"), { method: "POST", headers: { "content-type": "application/json" }, body: payload });
    expect(notStripe.status).toBe(403);
  });

  test("an abandoned checkout expires; a paid one whose webhook never came is credited from Stripe's record", async () => {
    const abandoned = (await topup({ amount: 700 })).body.id;
    const abandonedSession = [...stripe.sessions.values()].find((x) => x.client_reference_id === abandoned)!;
    await stripe.expire(abandonedSession.id);
    expect(await payment(abandoned)).toMatchObject({ status: "expired", checkout_url: null, failure_reason: "the checkout was not completed in time" });

    const missed = (await topup({ amount: 1200 })).body.id;
    const lost = (await topup({ amount: 1300 })).body.id;
    const before = await balance();
    await stripe.pay([...stripe.sessions.values()].find((x) => x.client_reference_id === missed)!.id, { deliver: false });
    // Nothing is asked before a payment is overdue; then Stripe's record settles both.
    expect(await reconcileOverdue(s.server.ctx)).toBe(0);
    s.server.clock.advance(61 * 60_000);
    await reconcileOverdue(s.server.ctx);
    expect((await payment(missed)).status).toBe("succeeded");
    expect((await payment(lost)).status).toBe("pending"); // Stripe still shows it open: within the grace it may yet be paid
    s.server.clock.advance(11 * 60_000);
    await reconcileOverdue(s.server.ctx);
    expect((await payment(lost)).status).toBe("expired");
    expect(await balance()).toBe(before + 12 * USD);
    // The late webhook finds the payment credited already.
    const late = stripe.event("checkout.session.completed", [...stripe.sessions.values()].find((x) => x.client_reference_id === missed)!);
    expect(JSON.parse((await stripe.deliver(late)).body).outcome).toBe("already_final");
    expect(await balance()).toBe(before + 12 * USD);
  });

  test("bad input names the field; Stripe down is 502 and the payment shows failed; viewers cannot top up", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, "amount"],
      [{ amount: 0 }, "amount"],
      [{ amount: 12.5 }, "amount"],
      [{ amount: "lots" }, "amount"],
      [{ amount: 10 }, "amount"],
      [{ amount: 2500, currency: "EUR" }, "currency"],
      [{ amount: 2500, currency: "dollars" }, "currency"],
      [{ amount: 2500, provider: "paypal" }, "provider"],
      [{ amount: 2500, extra: true }, "extra"],
    ];
    for (const [body, field] of cases) {
      const res = await topup(body);
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: any) => e.field).join(" ")).toContain(field);
    }
    expect((await topup({ amount: 2500, currency: "usd" })).status).toBe(201);

    stripe.failNext = 1;
    const down = await topup({ amount: 2500 });
    expect(down.status).toBe(502);
    expect(down.body.detail).toContain("Stripe refused the checkout");
    const failed = (await s.server.api.get("/v1/payments/history?status=failed", opts())).body.data[0];
    expect(failed).toMatchObject({ status: "failed", amount: 2500 });

    const reader = (await createKey(s.server.api, (await s.server.api.post("/v1/auth/login", { email: s.user.email, password: s.user.password })).body.access_token, "read-only")).secret;
    expect((await topup({ amount: 2500 }, reader)).status).toBe(403);
    expect((await s.server.api.get("/v1/payments/history", { token: reader })).status).toBe(200);
  });

  test("another workspace's payments are not found", async () => {
    const mine = (await topup({ amount: 900 })).body.id;
    const stranger = await registerUser(s.server.api, "stranger");
    expect((await s.server.api.get(`/v1/payments/${mine}`, { token: stranger.token })).status).toBe(404);
    const theirs = (await s.server.api.get("/v1/payments/history", { token: stranger.token })).body;
    expect(theirs.data).toEqual([]);
    // Settling someone else's top-up by naming it in another tenant's credit is not found either.
    const operator = await registerOperator(s.server);
    const cross = await s.server.api.post(`/v1/admin/workspaces/${stranger.workspaceId}/credit`, { amount: 9 * USD, note: "x", payment_id: mine }, { token: operator.token });
    expect(cross.status).toBe(404);
  });
});

describe("automatic recharges", () => {
  test("the card saved at checkout is charged off-session when the balance falls below the threshold, once", async () => {
    const user = await registerUser(s.server.api, "recharger");
    const token = user.token;
    const patch = (body: Record<string, unknown>) => s.server.api.patch("/v1/wallet/auto-recharge", body, { token });
    expect((await patch({ enabled: true, threshold: 10 * USD, amount: 2000 })).body.code).toBe("invalid_state"); // no card yet
    expect((await patch({ enabled: true })).body.errors[0].field).toBe("threshold");
    expect((await patch({})).status).toBe(422);
    expect((await patch({ amount: 10 })).body.errors[0].field).toBe("amount");

    const first = (await topup({ amount: 2500 }, token)).body.id;
    await stripe.pay([...stripe.sessions.values()].find((x) => x.client_reference_id === first)!.id);
    const set = await patch({ enabled: true, threshold: 10 * USD, amount: 2000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ object: "auto_recharge", enabled: true, threshold: 10 * USD, amount: 2000, currency: "USD", card: { provider: "stripe" } });
    expect((await s.server.api.get("/v1/wallet/auto-recharge", { token })).body).toEqual(set.body);

    // Spending takes the wallet to 5 USD: the sweep queues one recharge, which charges the saved card.
    const operator = await registerOperator(s.server, "rechargeop");
    expect((await s.server.api.post(`/v1/admin/workspaces/${user.workspaceId}/credit`, { amount: -20 * USD, note: "usage" }, { token: operator.token })).status).toBe(200);
    const recharged = await waitForPayment(token, (p) => p.kind === "auto_recharge" && p.status !== "pending");
    expect(recharged).toMatchObject({ provider: "stripe", status: "succeeded", amount: 2000, credit: 20 * USD });
    expect(await balance(token)).toBe(25 * USD);
    const charge = stripe.requests.find((r) => r.path === "/v1/payment_intents" && r.idempotencyKey === recharged.id)!;
    expect(charge.params).toMatchObject({ amount: "2000", currency: "usd", off_session: "true", confirm: "true", metadata: { payment_id: recharged.id, workspace_id: user.workspaceId } });
    // Stripe's payment_intent.succeeded follows the answer: it finds the recharge credited already.
    await waitFor(() => stripe.deliveries.some((d) => d.event.type === "payment_intent.succeeded" && d.event.data.object.metadata.payment_id === recharged.id));
    const followUp = stripe.deliveries.find((d) => d.event.type === "payment_intent.succeeded" && d.event.data.object.metadata.payment_id === recharged.id)!;
    expect(JSON.parse(followUp.body).outcome).toBe("already_final");
    expect(await balance(token)).toBe(25 * USD);
    expect(eventsOf(recharged.id)).toHaveLength(1);

    // Above the threshold nothing more happens.
    sweepAutoRecharge(s.server.ctx);
    await settle(s.server);
    const all = (await s.server.api.get("/v1/payments/history", { token })).body.data;
    expect(all.filter((p: any) => p.kind === "auto_recharge")).toHaveLength(1);
  }, 30_000);

  test("a declined card fails the recharge with Stripe's reason, credits nothing and is not retried at once", async () => {
    const user = await registerUser(s.server.api, "declined");
    const token = user.token;
    const first = (await topup({ amount: 1500 }, token)).body.id;
    await stripe.pay([...stripe.sessions.values()].find((x) => x.client_reference_id === first)!.id, { decline: "insufficient_funds" });
    expect((await s.server.api.patch("/v1/wallet/auto-recharge", { enabled: true, threshold: 20 * USD, amount: 1000 }, { token })).status).toBe(200);
    const failed = await waitForPayment(token, (p) => p.kind === "auto_recharge" && p.status !== "pending");
    expect(failed.status).toBe("failed");
    expect(failed.failure_reason).toContain("declined");
    expect(await balance(token)).toBe(15 * USD);
    // Still below the threshold, but the card said no a moment ago.
    sweepAutoRecharge(s.server.ctx);
    await settle(s.server);
    const all = (await s.server.api.get("/v1/payments/history", { token })).body.data;
    expect(all.filter((p: any) => p.kind === "auto_recharge")).toHaveLength(1);
  }, 30_000);
});

describe("offline top-ups", () => {
  test("without Stripe a top-up is an offline request the operator settles; a direct credit is an offline payment", async () => {
    const server = await startTestServer();
    try {
      const user = await registerUser(server.api, "offline");
      const userKey = (await createKey(server.api, user.token, "admin")).secret;
      const operator = await registerOperator(server);
      const credit = (body: Record<string, unknown>) => server.api.post(`/v1/admin/workspaces/${user.workspaceId}/credit`, body, { token: operator.token });
      expect((await server.api.post("/v1/payments/topup", { amount: 5000, provider: "stripe" }, { token: user.token })).body.code).toBe("payment_provider_unavailable");
      const asked = await server.api.post("/v1/payments/topup", { amount: 5000 }, { token: user.token });
      expect(asked.status).toBe(201);
      expect(asked.body).toMatchObject({ provider: "offline", kind: "topup", status: "pending", checkout_url: null, credit: 50 * USD });

      expect((await credit({ amount: 49 * USD, note: "INV-7", payment_id: asked.body.id })).body.errors[0].field).toBe("amount");
      const settled = await credit({ amount: 50 * USD, note: "INV-7 paid by transfer", payment_id: asked.body.id });
      expect(settled.status).toBe(200);
      expect(settled.body.payment).toMatchObject({ id: asked.body.id, status: "succeeded" });
      expect(settled.body.entry).toMatchObject({ cause: "topup", amount: 50 * USD, note: "INV-7 paid by transfer", ref_type: "payment", ref_id: asked.body.id });
      expect((await credit({ amount: 50 * USD, note: "again", payment_id: asked.body.id })).body.code).toBe("invalid_state");

      server.clock.advance(1000);
      const goodwill = await credit({ amount: 5 * USD, note: "goodwill" });
      expect(goodwill.body.payment).toMatchObject({ provider: "offline", kind: "credit", status: "succeeded", amount: 500, credit: 5 * USD });
      expect(goodwill.body.entry.cause).toBe("operator_credit");
      const debit = await credit({ amount: -1 * USD, note: "correction" });
      expect(debit.body.payment).toBeNull();

      const history = (await server.api.get("/v1/payments/history", { token: user.token })).body.data;
      expect(history.map((p: any) => [p.kind, p.status])).toEqual([["credit", "succeeded"], ["topup", "succeeded"]]);
      const events = (server.ctx.sqlite.prepare("SELECT body FROM events WHERE type = 'payment.succeeded' AND workspace_id = ?").all(user.workspaceId) as { body: string }[]).map((r) => JSON.parse(r.body).data);
      expect(events.map((e) => [e.provider, e.kind, e.amount])).toEqual([["offline", "topup", 50 * USD], ["offline", "credit", 5 * USD]]);
      expect((await server.api.get("/v1/wallet", { token: user.token })).body.balance).toBe(54 * USD);

      // An offline request nobody settles lapses after 30 days.
      const forgotten = (await server.api.post("/v1/payments/topup", { amount: 800 }, { token: userKey })).body.id;
      server.clock.advance(31 * 86_400_000);
      await reconcileOverdue(server.ctx);
      expect((await server.api.get(`/v1/payments/${forgotten}`, { token: userKey })).body.status).toBe("expired");
      // Without Stripe no event is believed.
      expect((await fetch(`${server.url}/v1/payments/webhook/stripe`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(403);
    } finally {
      await server.stop();
    }
  });
});

async function waitForPayment(token: string, done: (payment: any) => boolean, timeoutMs = 15_000): Promise<any> {
  let found: any;
  await waitFor(async () => {
    const list = (await s.server.api.get("/v1/payments/history", { token })).body.data;
    found = list.find(done);
    return Boolean(found);
  }, timeoutMs);
  return found;
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("timed out");
    await Bun.sleep(100);
  }
}
