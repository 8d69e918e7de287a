import { describe, expect, test } from "bun:test";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { expectInProgress, holdUpload } from "../helpers/held-request.ts";

const s = serverWithUser();

describe("Idempotency-Key on POST", () => {
  test("a repeat with the same key and body returns the stored response, creating nothing new", async () => {
    const headers = { "idempotency-key": "create-key-1" };
    const first = await s.server.api.post("/v1/api-keys", { name: "ci", scope: "write" }, { token: s.user.token, headers });
    expect(first.status).toBe(201);
    const second = await s.server.api.post("/v1/api-keys", { name: "ci", scope: "write" }, { token: s.user.token, headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    // The stored copy holds the key's secret, so it is encrypted at rest.
    const stored = JSON.stringify(s.server.ctx.sqlite.prepare("SELECT * FROM idempotency_keys").all());
    expect(stored).not.toContain(first.body.key);
    const list = await s.server.api.get("/v1/api-keys", { token: s.user.token });
    expect(list.body.data.filter((k: any) => k.name === "ci")).toHaveLength(1);
  });

  test("the same key with a different body is 409", async () => {
    const headers = { "idempotency-key": "create-key-2" };
    expect((await s.server.api.post("/v1/api-keys", { name: "a", scope: "write" }, { token: s.user.token, headers })).status).toBe(201);
    const clash = await s.server.api.post("/v1/api-keys", { name: "b", scope: "write" }, { token: s.user.token, headers });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("idempotency_key_reused");
  });

  test("a multipart upload counts by its file's bytes: the same file is replayed, another file under the key is 409", async () => {
    const kb = (await s.server.api.post("/v1/knowledge-base", { name: "Uploads" }, { token: s.user.token })).body.id;
    const send = (text: string) => {
      const form = new FormData();
      form.append("file", new File([text], "notes.txt", { type: "text/plain" }));
      return fetch(`${s.server.url}/v1/knowledge-base/${kb}/sources`, { method: "POST", headers: { authorization: `Bearer ${s.user.token}`, "idempotency-key": "upload-1" }, body: form });
    };
    const first = await send("We open at nine.");
    expect(first.status).toBe(202);
    const again = await send("We open at nine.");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(((await first.json()) as any).id);
    const other = await send("We open at ten!!");
    expect(other.status).toBe(409);
    expect(((await other.json()) as any).code).toBe("idempotency_key_reused");
  });

  test("4xx answers are replayed too; keys are per credential", async () => {
    const headers = { "idempotency-key": "bad-1" };
    const bad = await s.server.api.post("/v1/api-keys", { name: "x", scope: "root" }, { token: s.user.token, headers });
    expect(bad.status).toBe(422);
    // Validation runs before the key is claimed, so the same invalid body gives the same answer again.
    expect((await s.server.api.post("/v1/api-keys", { name: "x", scope: "root" }, { token: s.user.token, headers })).status).toBe(422);

    const other = await registerUser(s.server.api);
    const mine = await s.server.api.post("/v1/api-keys", { name: "same", scope: "write" }, { token: s.user.token, headers: { "idempotency-key": "shared" } });
    const theirs = await s.server.api.post("/v1/api-keys", { name: "same", scope: "write" }, { token: other.token, headers: { "idempotency-key": "shared" } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);

    const conflict = await s.server.api.post("/v1/workspaces/current/members", { email: s.user.email, role: "member" }, { token: s.user.token, headers: { "idempotency-key": "dup" } });
    expect(conflict.status).toBe(409);
    const replay = await s.server.api.post("/v1/workspaces/current/members", { email: s.user.email, role: "member" }, { token: s.user.token, headers: { "idempotency-key": "dup" } });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

  });

  test("without a key every POST runs", async () => {
    const a = await s.server.api.post("/v1/api-keys", { name: "twice", scope: "write" }, { token: s.user.token });
    const b = await s.server.api.post("/v1/api-keys", { name: "twice", scope: "write" }, { token: s.user.token });
    expect(a.body.id).not.toBe(b.body.id);
  });

  test("public POSTs are keyed by client IP", async () => {
    const body = { email: "idem@example.test", password: "long enough pass" };
    const headers = { "idempotency-key": "register-1" };
    const first = await s.server.api.post("/v1/auth/register", body, { headers });
    const second = await s.server.api.post("/v1/auth/register", body, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.user.id).toBe(first.body.user.id);
  });

  test("malformed keys are refused", async () => {
    const res = await s.server.api.post("/v1/api-keys", { name: "x", scope: "write" }, { token: s.user.token, headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
  });

  test("a claim still without an answer is 409 in progress; one left a minute (its request died) is taken over", async () => {
    const headers = { "idempotency-key": "in-flight" };
    const first = await s.server.api.post("/v1/agents", { name: "In flight" }, { token: s.user.token, headers });
    expect(first.status).toBe(201);
    // As the row is while its request runs, or after the process died before answering.
    s.server.ctx.sqlite.prepare("UPDATE idempotency_keys SET status = NULL, response_body = NULL WHERE key = ?").run("in-flight");
    const busy = await s.server.api.post("/v1/agents", { name: "In flight" }, { token: s.user.token, headers });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe("idempotency_in_progress");
    s.server.clock.advance(60_000);
    const retried = await s.server.api.post("/v1/agents", { name: "In flight" }, { token: s.user.token, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(retried.body.id).not.toBe(first.body.id);
    const replayed = await s.server.api.post("/v1/agents", { name: "In flight" }, { token: s.user.token, headers });
    expect(replayed.body.id).toBe(retried.body.id);
  });

  test("a request still running past a minute keeps its key: the retry is 409 in progress, not a second run, and is replayed the answer once there is one", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "Caller" }, { token: s.user.token });
    const campaign = await s.server.api.post("/v1/campaigns", { name: "Slow upload", agent_id: agent.body.id }, { token: s.user.token });
    const upload = await holdUpload(s.server.url, campaign.body.id, s.user.token, "slow-upload");
    const claim = s.server.ctx.sqlite.prepare("SELECT status FROM idempotency_keys WHERE key = ?");
    for (let waited = 0; !claim.get("slow-upload") && waited < 5_000; waited += 20) await Bun.sleep(20);
    expect(claim.get("slow-upload")).toEqual({ status: null });
    s.server.clock.advance(2 * 60_000); // a slow client: the claim is older than a dead request's
    expectInProgress(await upload.send(s.server.url));
    const first = await upload.finish();
    expect(await upload.send(s.server.url)).toEqual({ status: 201, replayed: true, body: first });
  });

  test("stored responses expire after 24 h (runs last: it moves the clock)", async () => {
    const headers = { "idempotency-key": "expiring" };
    const first = await s.server.api.post("/v1/auth/register", { email: "expiring@example.test", password: "long enough pass" }, { headers });
    expect(first.status).toBe(201);
    s.server.clock.advance(24 * 60 * 60 * 1000 + 1);
    const again = await s.server.api.post("/v1/auth/register", { email: "expiring@example.test", password: "long enough pass" }, { headers });
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(409); // it really ran again: the e-mail is now taken
  });
});
