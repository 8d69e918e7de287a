// The public front door (152-155): contact form, newsletter with double opt-in, client events, the demo
// call; their spam defences and caps; and the operator's lists and CSV exports of what they stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LIVE, parseCsv, waitForCall } from "../helpers/call-api.ts";
import { addMember, createKey, registerOperator, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { ApiResponse } from "../helpers/client.ts";

let server: TestServer;
let operator: RegisteredUser;
let operatorKey: string;
let tenant: RegisteredUser;
/** Keys never expire, unlike access tokens (the tests move the clock by days). */
let tenantKey: string;
let demoAgent: string;
let verifyAgent: string;

beforeAll(async () => {
  // Requests come through the trusted local proxy, so each test can speak as its own client address.
  server = await startTestServer({ settings: { trustedProxies: "127.0.0.1" } });
  operator = await registerOperator(server);
  operatorKey = (await createKey(server.api, operator.token, "admin")).secret;
  tenant = await registerUser(server.api, "tenant");
  tenantKey = (await createKey(server.api, tenant.token, "admin")).secret;
  const as = { token: operatorKey };
  const demo = await server.api.post("/v1/agents", { name: "Demo", first_message: "Hello from the demo. What would you like to try?" }, as);
  const verifier = await server.api.post("/v1/agents", { name: "Demo verification", first_message: "Your demo code is {{demo_code}}. Goodbye." }, as);
  expect(demo.status).toBe(201);
  expect(verifier.status).toBe(201);
  demoAgent = demo.body.id;
  verifyAgent = verifier.body.id;
  for (const agent of [demoAgent, verifyAgent]) {
    const number = await server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, as);
    expect(number.status).toBe(201);
    expect((await server.api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent }, as)).status).toBe(200);
  }
});
afterAll(() => server.stop());

let nextIp = 1;
/** A fresh client address per use (through the trusted proxy), so caps never mix between tests. */
const newClient = () => ({ "x-forwarded-for": `198.51.100.${nextIp++}` });
/** A form shown ten seconds ago (the minimum is three). */
const shown = () => ({ form_started_at: server.clock.now() - 10_000 });
const send = (path: string, body: unknown, headers: Record<string, string> = newClient()) => server.api.post(path, body, { headers });
const asOperator = (path: string) => server.api.get(path, { token: operatorKey });
/** A fresh access token (the clock has moved past the first one's 15 minutes). */
const signIn = async (user: RegisteredUser): Promise<RegisteredUser> => {
  const res = await server.api.post("/v1/auth/login", { email: user.email, password: user.password });
  expect(res.status).toBe(200);
  return { ...user, token: res.body.access_token };
};

/** problem+json naming `field` (and, for 422, in errors[]). */
function expectProblem(res: ApiResponse, status: number, code: string, field?: string) {
  expect(`${res.status} ${res.body?.code}`).toBe(`${status} ${code}`);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  if (field) expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

const contact = (overrides: Record<string, unknown> = {}) => ({ name: "Ada Lovelace", email: "ada@example.com", company: "Analytical Engines", message: "Can your agents speak French?", ...shown(), ...overrides });

describe("contact form (152)", () => {
  test("a message is stored with its sender's hashed address and user agent; the operator lists and exports it", async () => {
    const res = await server.api.post("/v1/contact", contact({ message: "=HYPERLINK(\"x\")  and, \"quotes\"" }), { headers: { ...newClient(), "user-agent": "FrontDoorTest/1.0" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^msg_/), object: "contact_message", created_at: expect.any(String) });
    const list = await asOperator("/v1/admin/contact-messages");
    expect(list.status).toBe(200);
    const stored = list.body.data.find((m: any) => m.id === res.body.id);
    expect(stored).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com", company: "Analytical Engines", user_agent: "FrontDoorTest/1.0" });
    expect(stored.visitor).toMatch(/^[0-9a-f]{64}$/);
    expect(list.text).not.toContain("198.51.100.");
    expect(server.logs.some((line) => line.includes("contact message received") && line.includes(res.body.id))).toBe(true);

    const exported = await fetch(`${server.url}/v1/admin/contact-messages/export`, { headers: { authorization: `Bearer ${operatorKey}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toContain("text/csv");
    const rows = parseCsv(await exported.text());
    expect(rows[0]).toEqual(["id", "created_at", "name", "email", "company", "message", "visitor", "user_agent"]);
    const row = rows.find((r) => r[0] === res.body.id)!;
    // A cell that begins like a formula is neutralised for spreadsheets.
    expect(row[5]).toBe("'=HYPERLINK(\"x\")  and, \"quotes\"");
  });

  test("company is optional; blank text is trimmed away", async () => {
    const res = await send("/v1/contact", contact({ company: undefined, name: "  Grace  " }));
    expect(res.status).toBe(201);
    const stored = (await asOperator("/v1/admin/contact-messages")).body.data.find((m: any) => m.id === res.body.id);
    expect(stored).toMatchObject({ name: "Grace", company: null });
  });

  const before = () => asOperator("/v1/admin/contact-messages?limit=100").then((r) => r.body.data.length as number);
  const bad: [string, () => Record<string, unknown>, number, string, string?][] = [
    ["missing e-mail", () => contact({ email: undefined }), 422, "validation_failed", "email"],
    ["an e-mail that is not one", () => contact({ email: "not-an-address" }), 422, "validation_failed", "email"],
    ["a name of the wrong type", () => contact({ name: 42 }), 422, "validation_failed", "name"],
    ["a blank name", () => contact({ name: "   " }), 422, "validation_failed", "name"],
    ["a missing message", () => contact({ message: undefined }), 422, "validation_failed", "message"],
    ["an oversized message", () => contact({ message: "x".repeat(5001) }), 422, "validation_failed", "message"],
    ["an oversized company", () => contact({ company: "c".repeat(101) }), 422, "validation_failed", "company"],
    ["an unknown field", () => contact({ phone: "+14155550100" }), 422, "validation_failed", "phone"],
    ["a filled honeypot", () => contact({ website: "https://cheap-pills.example" }), 422, "validation_failed", "website"],
    ["a form sent too fast", () => contact({ form_started_at: server.clock.now() - 800 }), 422, "validation_failed", "form_started_at"],
    ["no form time", () => contact({ form_started_at: undefined }), 422, "validation_failed", "form_started_at"],
    ["a form time of the wrong type", () => contact({ form_started_at: "just now" }), 422, "validation_failed", "form_started_at"],
    ["a form time far in the future", () => contact({ form_started_at: server.clock.now() + 3 * 86_400_000 }), 422, "validation_failed", "form_started_at"],
    ["a body over 32 KiB", () => contact({ message: "x".repeat(4000), padding: "y".repeat(40_000) }), 413, "payload_too_large"],
  ];
  for (const [name, body, status, code, field] of bad) {
    test(`refuses ${name} (${status}${field ? ` on ${field}` : ""}) and stores nothing`, async () => {
      const count = await before();
      expectProblem(await send("/v1/contact", body()), status, code, field);
      expect(await before()).toBe(count);
    });
  }

  test("refuses a body that is not JSON", async () => {
    expectProblem(await server.api.post("/v1/contact", undefined, { headers: newClient(), raw: "{name:", contentType: "application/json" }), 400, "malformed_json");
  });

  test("one address may send 5 messages an hour; the sixth is 429 with Retry-After, other addresses go on", async () => {
    const visitor = newClient();
    for (let i = 0; i < 5; i++) expect((await send("/v1/contact", contact({ message: `message ${i}` }), visitor)).status).toBe(201);
    const limited = await send("/v1/contact", contact(), visitor);
    expectProblem(limited, 429, "rate_limited");
    expect(limited.body.detail).toContain("5 contact messages");
    expect(Number(limited.headers.get("retry-after"))).toBe(3600);
    expect((await send("/v1/contact", contact())).status).toBe(201);
    server.clock.advance(3600_000);
    expect((await send("/v1/contact", contact(), visitor)).status).toBe(201);
  });

  test("the list pages with a cursor", async () => {
    const first = await asOperator("/v1/admin/contact-messages?limit=2");
    expect(first.body.has_more).toBe(true);
    const second = await asOperator(`/v1/admin/contact-messages?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    const ids = [...first.body.data, ...second.body.data].map((m: any) => m.id);
    expect(new Set(ids).size).toBe(4);
    expectProblem(await asOperator("/v1/admin/contact-messages?cursor=bogus"), 422, "validation_failed", "cursor");
  });
});

describe("newsletter (153) with double opt-in", () => {
  const links = (email: string) => server.logs.filter((line) => line.includes("newsletter sign-up") && line.includes(email));
  const tokenOf = (line: string) => /confirm\?token=([A-Za-z0-9]+)/.exec(line)![1];
  const subscriptions = async (email: string) => (await asOperator("/v1/admin/newsletter-subscriptions?limit=100")).body.data.filter((s: any) => s.email === email);

  test("sign up, confirm through the logged link, unsubscribe, sign up again", async () => {
    const email = "reader-one@example.com";
    const res = await send("/v1/newsletter/subscribe", { email, source: "footer", ...shown() });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: "accepted" });
    expect(links(email)).toHaveLength(1);
    expect(links(email)[0]).toContain("no mail server configured");
    expect(links(email)[0]).toContain(`${server.ctx.publicUrl}/newsletter/confirm?token=`);
    expect(await subscriptions(email)).toMatchObject([{ status: "pending", source: "footer", confirmed_at: null, unsubscribe_url: null }]);

    const confirmed = await send("/v1/newsletter/confirm", { token: tokenOf(links(email)[0]) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ object: "newsletter_subscription", email, status: "confirmed" });
    // Opening the link again answers the same.
    expect((await send("/v1/newsletter/confirm", { token: tokenOf(links(email)[0]) })).body.status).toBe("confirmed");
    const [row] = await subscriptions(email);
    const unsubscribeUrl: string = row.unsubscribe_url;
    expect(unsubscribeUrl).toStartWith(`${server.ctx.publicUrl}/newsletter/unsubscribe?token=nls_`);
    expect(row).toMatchObject({ status: "confirmed", confirmed_at: expect.any(String) });

    // Signing up again while confirmed: the same answer, no new link, no second row.
    const again = await send("/v1/newsletter/subscribe", { email: "Reader-One@Example.com", ...shown() });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(res.body);
    expect(links(email)).toHaveLength(1);
    expect(await subscriptions(email)).toHaveLength(1);

    const token = new URL(unsubscribeUrl).searchParams.get("token")!;
    const gone = await send("/v1/newsletter/unsubscribe", { token });
    expect(gone.body).toEqual({ object: "newsletter_subscription", email, status: "unsubscribed" });
    expect((await send("/v1/newsletter/unsubscribe", { token })).body.status).toBe("unsubscribed");
    expect((await subscriptions(email))[0]).toMatchObject({ status: "unsubscribed", unsubscribe_url: null });
    // The old confirmation link cannot bring it back; signing up again starts a new opt-in.
    expectProblem(await send("/v1/newsletter/confirm", { token: tokenOf(links(email)[0]) }), 422, "validation_failed", "token");
    expect((await send("/v1/newsletter/subscribe", { email, ...shown() })).status).toBe(202);
    expect(links(email)).toHaveLength(2);
    expect(await subscriptions(email)).toMatchObject([{ status: "pending" }]);
    expect((await send("/v1/newsletter/confirm", { token: tokenOf(links(email)[1]) })).body.status).toBe("confirmed");
  });

  test("signing up twice while pending is one row; the newest link works, the replaced one does not", async () => {
    const email = "reader-two@example.com";
    const first = await send("/v1/newsletter/subscribe", { email, ...shown() });
    const second = await send("/v1/newsletter/subscribe", { email, ...shown() });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body).toEqual(first.body);
    expect(await subscriptions(email)).toHaveLength(1);
    const [older, newer] = links(email).map(tokenOf);
    expectProblem(await send("/v1/newsletter/confirm", { token: older }), 422, "validation_failed", "token");
    expect((await send("/v1/newsletter/confirm", { token: newer })).status).toBe(200);
  });

  test("the answer never tells a new address from a pending or confirmed one", async () => {
    const answers = [];
    for (const email of ["brand-new@example.com", "reader-two@example.com", "reader-one@example.com"]) {
      const res = await send("/v1/newsletter/subscribe", { email, ...shown() });
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  test("a confirmation link lasts 7 days", async () => {
    const email = "slow-reader@example.com";
    await send("/v1/newsletter/subscribe", { email, ...shown() });
    server.clock.advance(7 * 86_400_000 + 1000);
    expectProblem(await send("/v1/newsletter/confirm", { token: tokenOf(links(email)[0]) }), 422, "validation_failed", "token");
  });

  test("the operator filters and exports the mailing list", async () => {
    const confirmed = await asOperator("/v1/admin/newsletter-subscriptions?status=confirmed");
    expect(confirmed.body.data.length).toBeGreaterThan(0);
    expect(confirmed.body.data.every((s: any) => s.status === "confirmed" && s.unsubscribe_url)).toBe(true);
    const exported = await fetch(`${server.url}/v1/admin/newsletter-subscriptions/export?status=confirmed`, { headers: { authorization: `Bearer ${operatorKey}` } });
    const rows = parseCsv(await exported.text());
    expect(rows[0]).toEqual(["id", "email", "status", "source", "created_at", "confirmed_at", "unsubscribe_url"]);
    expect(rows.slice(1).map((r) => r[1]).sort()).toEqual(confirmed.body.data.map((s: any) => s.email).sort());
    expectProblem(await asOperator("/v1/admin/newsletter-subscriptions?status=maybe"), 422, "validation_failed", "status");
  });

  const bad: [string, string, () => Record<string, unknown>, string][] = [
    ["an invalid e-mail", "/v1/newsletter/subscribe", () => ({ email: "nobody", ...shown() }), "email"],
    ["a missing e-mail", "/v1/newsletter/subscribe", () => ({ ...shown() }), "email"],
    ["an oversized source", "/v1/newsletter/subscribe", () => ({ email: "x@example.com", source: "s".repeat(101), ...shown() }), "source"],
    ["a filled honeypot", "/v1/newsletter/subscribe", () => ({ email: "bot@example.com", website: "x", ...shown() }), "website"],
    ["a form sent too fast", "/v1/newsletter/subscribe", () => ({ email: "bot@example.com", form_started_at: server.clock.now() - 100 }), "form_started_at"],
    ["an unknown confirmation token", "/v1/newsletter/confirm", () => ({ token: "not-a-token" }), "token"],
    ["a confirmation token of the wrong type", "/v1/newsletter/confirm", () => ({ token: 12345 }), "token"],
    ["a forged unsubscribe token", "/v1/newsletter/unsubscribe", () => ({ token: "nls_aaaaaaaaaaaaaaaaaaaa.forged" }), "token"],
  ];
  for (const [name, path, body, field] of bad) {
    test(`${path}: refuses ${name} (422 on ${field})`, async () => {
      expectProblem(await send(path, body()), 422, "validation_failed", field);
    });
  }

  test("refused sign-ups store nothing and log no link", async () => {
    await send("/v1/newsletter/subscribe", { email: "bot@example.com", website: "x", ...shown() });
    expect(links("bot@example.com")).toEqual([]);
    expect(await subscriptions("bot@example.com")).toEqual([]);
  });
});

describe("client events (154)", () => {
  const event = (overrides: Record<string, unknown> = {}) => ({ name: "page_view", properties: { path: "/pricing", plan: "pro" }, anonymous_id: "anon-123", url: "https://www.example.com/pricing", ...overrides });
  const eventCount = async () => {
    const rows = parseCsv(await (await fetch(`${server.url}/v1/admin/client-events/export`, { headers: { authorization: `Bearer ${operatorKey}` } })).text());
    return rows.length - 1;
  };

  test("a batch is stored; the operator lists and exports it", async () => {
    const occurred = new Date(server.clock.now() - 60_000).toISOString();
    const res = await send("/v1/events", { events: [event({ occurred_at: occurred }), { name: "Signup Clicked" }] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ object: "event_batch", accepted: 2 });
    const list = await asOperator("/v1/admin/client-events?limit=2");
    expect(list.status).toBe(200);
    const [signup, view] = [list.body.data.find((e: any) => e.name === "Signup Clicked"), list.body.data.find((e: any) => e.name === "page_view")];
    expect(view).toMatchObject({ object: "client_event", properties: { path: "/pricing", plan: "pro" }, anonymous_id: "anon-123", url: "https://www.example.com/pricing", occurred_at: occurred });
    expect(view.id).toMatch(/^cev_/);
    expect(signup).toMatchObject({ properties: null, anonymous_id: null, url: null, occurred_at: signup.received_at });
    const rows = parseCsv(await (await fetch(`${server.url}/v1/admin/client-events/export`, { headers: { authorization: `Bearer ${operatorKey}` } })).text());
    expect(rows[0]).toEqual(["id", "name", "occurred_at", "received_at", "anonymous_id", "url", "visitor", "properties"]);
    expect(JSON.parse(rows.find((r) => r[0] === view.id)![7])).toEqual({ path: "/pricing", plan: "pro" });
  });

  test("50 events per batch are accepted", async () => {
    const res = await send("/v1/events", { events: Array.from({ length: 50 }, (_, i) => event({ name: `step_${i}` })) });
    expect(res.body.accepted).toBe(50);
  });

  const bad: [string, () => unknown, number, string, string?][] = [
    ["51 events", () => ({ events: Array.from({ length: 51 }, () => event()) }), 422, "validation_failed", "events"],
    ["an empty batch", () => ({ events: [] }), 422, "validation_failed", "events"],
    ["no events field", () => ({}), 422, "validation_failed", "events"],
    ["events that are not a list", () => ({ events: "page_view" }), 422, "validation_failed", "events"],
    ["an event without a name", () => ({ events: [event(), { properties: {} }] }), 422, "validation_failed", "events[1].name"],
    ["a name of the wrong type", () => ({ events: [event({ name: 7 })] }), 422, "validation_failed", "events[0].name"],
    ["a name with markup", () => ({ events: [event({ name: "<script>" })] }), 422, "validation_failed", "events[0].name"],
    ["properties that are not an object", () => ({ events: [event({ properties: [1, 2] })] }), 422, "validation_failed", "events[0].properties"],
    ["properties over 4 KiB", () => ({ events: [event(), event({ properties: { blob: "z".repeat(5000) } })] }), 422, "validation_failed", "events[1].properties"],
    ["a url that is not http(s)", () => ({ events: [event({ url: "javascript:alert(1)" })] }), 422, "validation_failed", "events[0].url"],
    ["an occurred_at that is not a time", () => ({ events: [event({ occurred_at: "yesterday" })] }), 422, "validation_failed", "events[0].occurred_at"],
    ["an occurred_at a day ahead", () => ({ events: [event({ occurred_at: new Date(server.clock.now() + 86_400_000).toISOString() })] }), 422, "validation_failed", "events[0].occurred_at"],
    ["an occurred_at 31 days back", () => ({ events: [event({ occurred_at: new Date(server.clock.now() - 31 * 86_400_000).toISOString() })] }), 422, "validation_failed", "events[0].occurred_at"],
    ["an unknown field in an event", () => ({ events: [event({ user_id: "u1" })] }), 422, "validation_failed", "events[0].user_id"],
    ["an oversized anonymous_id", () => ({ events: [event({ anonymous_id: "a".repeat(129) })] }), 422, "validation_failed", "events[0].anonymous_id"],
    ["a body over 256 KiB", () => ({ events: Array.from({ length: 50 }, () => event({ properties: { blob: "z".repeat(4000) } })), padding: "p".repeat(80_000) }), 413, "payload_too_large"],
  ];
  for (const [name, body, status, code, field] of bad) {
    test(`refuses ${name} (${status}${field ? ` on ${field}` : ""}); the whole batch is left out`, async () => {
      const count = await eventCount();
      expectProblem(await send("/v1/events", body()), status, code, field);
      expect(await eventCount()).toBe(count);
    });
  }
});

describe("demo call (155)", () => {
  const config = () => server.ctx.config;
  const operatorCalls = async (agentId: string) => (await asOperator(`/v1/calls?agent_id=${agentId}&limit=100`)).body.data as any[];

  test("without a demo agent set, the demo answers 409 demo_unavailable", async () => {
    config().demoAgent = "";
    expectProblem(await send("/v1/demo/call", { to: "+14155550104", ...shown() }), 409, "demo_unavailable");
    expectProblem(await send("/v1/demo/verify", { to: "+14155550104", ...shown() }), 409, "demo_unavailable");
  });

  test("a demo agent outside the operator's workspace is unavailable too (the reason goes to the log)", async () => {
    const foreign = await server.api.post("/v1/agents", { name: "Tenant agent" }, { token: tenantKey });
    expect(foreign.status).toBe(201);
    config().demoAgent = foreign.body.id;
    expectProblem(await send("/v1/demo/call", { to: "+14155550104", ...shown() }), 409, "demo_unavailable");
    expect(server.logs.some((line) => line.includes("not an agent of the operator workspace") && line.includes(foreign.body.id))).toBe(true);
  });

  test("a real call from the operator's demo agent to the visitor; it ends; another tenant cannot see it", async () => {
    config().demoAgent = demoAgent;
    config().demoVerifyAgent = "";
    // 555-0104 on the simulated carrier answers and hangs up after 3 s.
    const res = await send("/v1/demo/call", { to: "+14155550104", ...shown() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^demo_/), object: "demo_call", to: "+14155550104", verified: false, created_at: expect.any(String) });
    const call = (await operatorCalls(demoAgent)).find((c) => c.metadata.demo_id === res.body.id);
    expect(call).toMatchObject({ direction: "outbound", to: "+14155550104", carrier: "simulated" });
    const ended = await waitForCall(server.api, operatorKey, call.id, (c) => !LIVE.includes(c.status));
    expect(ended.status).toBe("completed");
    expect(ended.end_reason).toBe("customer_hangup");
    expect((await server.api.get(`/v1/calls/${call.id}`, { token: tenantKey })).status).toBe(404);
    expect(res.text).not.toContain(call.id);
  });

  const numbers: [string, string][] = [
    ["a premium-rate number", "+19005551234"],
    ["a toll-free number", "+18005550123"],
    ["an emergency number", "+1911"],
    ["a number without +", "14155550104"],
    ["an unassigned number", "+44770090012"],
  ];
  for (const [name, to] of numbers) {
    test(`refuses ${name} (422 on to)`, async () => {
      config().demoAgent = demoAgent;
      expectProblem(await send("/v1/demo/call", { to, ...shown() }), 422, "validation_failed", "to");
    });
  }

  test("refuses bots: a filled honeypot and a form sent too fast, before anything is dialled", async () => {
    config().demoAgent = demoAgent;
    const before = (await operatorCalls(demoAgent)).length;
    expectProblem(await send("/v1/demo/call", { to: "+14155550104", website: "x", ...shown() }), 422, "validation_failed", "website");
    expectProblem(await send("/v1/demo/call", { to: "+14155550104", form_started_at: server.clock.now() - 1 }), 422, "validation_failed", "form_started_at");
    expectProblem(await send("/v1/demo/call", { to: 4155550104, ...shown() }), 422, "validation_failed", "to");
    expect((await operatorCalls(demoAgent)).length).toBe(before);
  });

  test("3 demo calls per number a day, whoever asks; then 429 until the oldest is a day old", async () => {
    config().demoAgent = demoAgent;
    // 555-0101 is busy on the simulated carrier: each call ends at once.
    const to = "+12125550101";
    for (let i = 0; i < 3; i++) expect((await send("/v1/demo/call", { to, ...shown() })).status).toBe(201);
    const limited = await send("/v1/demo/call", { to, ...shown() });
    expectProblem(limited, 429, "rate_limited");
    expect(limited.body.detail).toContain(`${to} has been called 3 times`);
    expect(Number(limited.headers.get("retry-after"))).toBe(86_400);
    server.clock.advance(86_400_000);
    expect((await send("/v1/demo/call", { to, ...shown() })).status).toBe(201);
  });

  test("5 demo calls per visitor a day; the sixth is 429, another visitor goes on", async () => {
    config().demoAgent = demoAgent;
    const visitor = newClient();
    for (const area of ["303", "617", "312", "206", "512"]) expect((await send("/v1/demo/call", { to: `+1${area}5550101`, ...shown() }, visitor)).status).toBe(201);
    const limited = await send("/v1/demo/call", { to: "+17025550101", ...shown() }, visitor);
    expectProblem(limited, 429, "rate_limited");
    expect(limited.body.detail).toContain("5 demo calls");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await send("/v1/demo/call", { to: "+17025550101", ...shown() })).status).toBe(201);
  });

  test("with verification on: a spoken code proves the number, then unlocks one demo call", async () => {
    config().demoAgent = demoAgent;
    config().demoVerifyAgent = verifyAgent;
    try {
      const visitor = newClient();
      const to = "+13035550104";
      expectProblem(await send("/v1/demo/call", { to, ...shown() }, visitor), 422, "validation_failed", "verification_id");
      const started = await send("/v1/demo/verify", { to, ...shown() }, visitor);
      expect(started.status).toBe(201);
      const verificationId: string = started.body.id;
      expect(verificationId).toStartWith("dver_");
      expect(started.body).toMatchObject({ object: "demo_verification", to, code_digits: 6, attempts: 5 });
      // The verification call is real: its agent's first message speaks the code.
      const verification = (await operatorCalls(verifyAgent)).find((c) => c.metadata.demo_id === verificationId);
      const spoken = verification.variables.demo_code as string;
      expect(spoken).toMatch(/^\d( \d){5}$/);
      const code = spoken.replace(/ /g, "");
      const ended = await waitForCall(server.api, operatorKey, verification.id, (c) => !LIVE.includes(c.status));
      expect(ended.status).toBe("completed");

      const wrong = code === "000000" ? "111111" : "000000";
      const attempt = { to, verification_id: verificationId, ...shown() };
      const refused = await send("/v1/demo/call", { ...attempt, code: wrong }, visitor);
      expectProblem(refused, 422, "validation_failed", "code");
      expect(refused.body.detail).toContain("4 attempts left");
      expectProblem(await send("/v1/demo/call", { ...attempt, to: "+13035550150", code }, visitor), 422, "validation_failed", "to");
      expectProblem(await send("/v1/demo/call", { ...attempt, verification_id: "dver_unknown", code }, visitor), 422, "validation_failed", "verification_id");
      const placed = await send("/v1/demo/call", { ...attempt, code }, visitor);
      expect(placed.status).toBe(201);
      expect(placed.body).toMatchObject({ to, verified: true });
      expect((await operatorCalls(demoAgent)).some((c) => c.metadata.demo_id === placed.body.id)).toBe(true);
      // A code unlocks one call.
      expectProblem(await send("/v1/demo/call", { ...attempt, code }, visitor), 422, "validation_failed", "verification_id");
    } finally {
      config().demoVerifyAgent = "";
    }
  });

  test("five wrong codes void a verification", async () => {
    config().demoAgent = demoAgent;
    config().demoVerifyAgent = verifyAgent;
    try {
      const visitor = newClient();
      const to = "+16175550101";
      const started = await send("/v1/demo/verify", { to, ...shown() }, visitor);
      const spoken = (await operatorCalls(verifyAgent)).find((c) => c.metadata.demo_id === started.body.id).variables.demo_code.replace(/ /g, "");
      const wrong = spoken === "000000" ? "111111" : "000000";
      for (let i = 0; i < 5; i++) expectProblem(await send("/v1/demo/call", { to, verification_id: started.body.id, code: wrong, ...shown() }, visitor), 422, "validation_failed", "code");
      expectProblem(await send("/v1/demo/call", { to, verification_id: started.body.id, code: spoken, ...shown() }, visitor), 422, "validation_failed", "verification_id");
    } finally {
      config().demoVerifyAgent = "";
    }
  });

  test("a verification agent that does not speak {{demo_code}} makes verification unavailable", async () => {
    config().demoAgent = demoAgent;
    config().demoVerifyAgent = demoAgent;
    try {
      expectProblem(await send("/v1/demo/verify", { to: "+15125550104", ...shown() }), 409, "demo_unavailable");
      expect(server.logs.some((line) => line.includes("must say {{demo_code}}"))).toBe(true);
    } finally {
      config().demoVerifyAgent = "";
    }
  });

  test("the demo agent cannot be deleted while the instance names it", async () => {
    config().demoAgent = demoAgent;
    const res = await server.api.delete(`/v1/agents/${demoAgent}`, { token: operatorKey });
    expect(`${res.status} ${res.body.code}`).toBe("409 agent_in_use");
    expect(res.body.detail).toContain("public demo call");
  });

  test("a demo agent that cannot call (no number) is unavailable, the reason is logged, and nothing counts toward the caps", async () => {
    const numberless = await server.api.post("/v1/agents", { name: "Demo without a number" }, { token: operatorKey });
    config().demoAgent = numberless.body.id;
    try {
      const visitor = newClient();
      for (let i = 0; i < 6; i++) expectProblem(await send("/v1/demo/call", { to: "+19495550104", ...shown() }, visitor), 409, "demo_unavailable");
      expect(server.logs.some((line) => line.includes("demo call could not be placed") && line.includes(numberless.body.id))).toBe(true);
      config().demoAgent = demoAgent;
      expect((await send("/v1/demo/call", { to: "+19495550101", ...shown() }, visitor)).status).toBe(201);
    } finally {
      config().demoAgent = demoAgent;
    }
  });
});

describe("the shared per-IP public limit", () => {
  test("counts every front-door route, 429 with Retry-After past it", async () => {
    const limited = await startTestServer({ settings: { publicRateLimitPerMinute: "3" } });
    try {
      const form = { form_started_at: limited.clock.now() - 10_000 };
      expect((await limited.api.post("/v1/events", { events: [{ name: "page_view" }] })).status).toBe(202);
      expect((await limited.api.post("/v1/newsletter/subscribe", { email: "limit@example.com", ...form })).status).toBe(202);
      const third = await limited.api.post("/v1/contact", { name: "A", email: "a@example.com", message: "hi", ...form });
      expect(third.status).toBe(201);
      expect(third.headers.get("ratelimit-remaining")).toBe("0");
      const fourth = await limited.api.post("/v1/demo/call", { to: "+14155550104", ...form });
      expectProblem(fourth, 429, "rate_limited");
      expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});

describe("operator-only lists and exports", () => {
  const paths = ["/v1/admin/contact-messages", "/v1/admin/contact-messages/export", "/v1/admin/newsletter-subscriptions", "/v1/admin/newsletter-subscriptions/export", "/v1/admin/client-events", "/v1/admin/client-events/export"];

  test("another workspace's owner, admin key, and a non-admin member of the operator workspace get 403; nobody signed in gets 401", async () => {
    const owner = await signIn(operator);
    const member = await addMember(server.api, owner, "member", "operator-member");
    const tenantOwner = await signIn(tenant);
    for (const path of paths) {
      for (const token of [tenantOwner.token, tenantKey, member.token]) expectProblem(await server.api.get(path, { token }), 403, "forbidden");
      expectProblem(await server.api.get(path), 401, "unauthorized");
      expect((await server.api.get(path, { token: owner.token })).status).toBe(200);
      expect((await server.api.get(path, { token: operatorKey })).status).toBe(200);
    }
  });

  test("a tenant's lists never show what the front door received", async () => {
    const contacts = await server.api.get("/v1/admin/contact-messages", { token: tenantKey });
    expect(contacts.text).not.toContain("ada@example.com");
  });
});
