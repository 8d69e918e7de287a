// Every size limit answers 413 problem+json naming the limit, whatever the size (past Bun's own cap too)
// and however the body is framed; the connection closes once the answer is written.
import { beforeAll, describe, expect, test } from "bun:test";
import { serverWithUser } from "../helpers/fixtures.ts";
import { callingAgent } from "../helpers/campaigns.ts";
import { rawRequest, type RawExchange } from "../helpers/raw-http.ts";

const s = serverWithUser();
const MiB = 1024 * 1024;
/** Past the 32 MiB at which Bun, left to itself, answers an empty 413 of its own. */
const HUGE = 40 * MiB;

let knowledgeBaseId = "";
let campaignId = "";

beforeAll(async () => {
  const kb = await s.server.api.post("/v1/knowledge-base", { name: "Uploads" }, { token: s.user.token });
  expect(kb.status).toBe(201);
  knowledgeBaseId = kb.body.id;
  const { agentId } = await callingAgent(s.server.api, s.user.token);
  const campaign = await s.server.api.post("/v1/campaigns", { name: "Uploads", agent_id: agentId }, { token: s.user.token });
  expect(campaign.status).toBe(201);
  campaignId = campaign.body.id;
});

function expectTooLarge(answer: RawExchange, limitBytes: number, words: string) {
  expect(answer.status).toBe(413);
  expect(answer.headers["content-type"]).toBe("application/problem+json");
  const problem = JSON.parse(answer.body);
  expect(problem).toMatchObject({ status: 413, code: "payload_too_large", limit_bytes: limitBytes });
  expect(problem.detail).toContain(words);
  // Refused while the body was still coming, not after reading it all.
  expect(answer.bytesSent).toBeLessThan(HUGE);
  expect(answer.headers.connection).toBe("close");
  expect(answer.closedByServer).toBe(true);
}

const multipart = (boundary: string) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;

describe.each([false, true])("a 40 MiB body, chunked: %p", (chunked) => {
  test("JSON before any credential (sign-in): the 1 MiB limit", async () => {
    const answer = await rawRequest(s.server.url, { method: "POST", path: "/v1/auth/login", headers: { "content-type": "application/json" }, bodyBytes: HUGE, chunked, prefix: '{"email":"' });
    expectTooLarge(answer, MiB, "1 MiB");
  });

  test("JSON on an authenticated operation: the 1 MiB limit", async () => {
    const headers = { "content-type": "application/json", authorization: `Bearer ${s.user.token}` };
    expectTooLarge(await rawRequest(s.server.url, { method: "POST", path: "/v1/agents", headers, bodyBytes: HUGE, chunked, prefix: '{"name":"' }), MiB, "1 MiB");
  });

  test("a knowledge-base file upload (multipart): its 20 MiB limit", async () => {
    const boundary = "parleyboundary";
    const headers = { "content-type": `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${s.user.token}` };
    const answer = await rawRequest(s.server.url, { method: "POST", path: `/v1/knowledge-base/${knowledgeBaseId}/sources`, headers, bodyBytes: HUGE, chunked, prefix: multipart(boundary) });
    expectTooLarge(answer, 20 * MiB + 64 * 1024, "20 MiB");
  });

  test("a campaign's contacts as text/csv and as multipart: the 10 MiB limit", async () => {
    const path = `/v1/campaigns/${campaignId}/upload`;
    const csv = await rawRequest(s.server.url, { method: "POST", path, headers: { "content-type": "text/csv", authorization: `Bearer ${s.user.token}` }, bodyBytes: HUGE, chunked, prefix: "phone_number,name\n" });
    expect(csv.status).toBe(413);
    expect(JSON.parse(csv.body).code).toBe("payload_too_large");
    expect(csv.headers["content-type"]).toBe("application/problem+json");
    expect(csv.closedByServer).toBe(true);
    const boundary = "parleyboundary";
    const form = await rawRequest(s.server.url, { method: "POST", path, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${s.user.token}` }, bodyBytes: HUGE, chunked, prefix: multipart(boundary) });
    expectTooLarge(form, 10 * MiB + 64 * 1024, "10 MiB");
    // Nothing was imported.
    const contacts = await s.server.api.get(`/v1/campaigns/${campaignId}/contacts`, { token: s.user.token });
    expect(contacts.body.data).toEqual([]);
  });
});

describe("bodies nothing reads close the connection instead of being drained", () => {
  test("a body sent without a credential: 401, then the connection closes", async () => {
    const answer = await rawRequest(s.server.url, { method: "POST", path: "/v1/agents", headers: { "content-type": "application/json" }, bodyBytes: HUGE, prefix: '{"name":"' });
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe("close");
    expect(answer.closedByServer).toBe(true);
    expect(answer.bytesSent).toBeLessThan(HUGE);
  });

  test("a body sent to no route: 404, then the connection closes", async () => {
    const answer = await rawRequest(s.server.url, { method: "POST", path: "/v1/nothing-here", headers: { "content-type": "application/json" }, bodyBytes: HUGE, chunked: true });
    expect(answer.status).toBe(404);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(answer.closedByServer).toBe(true);
  });

  test("a GET with a body is answered, and its connection closed", async () => {
    const answer = await rawRequest(s.server.url, { method: "GET", path: "/v1/health", headers: {}, bodyBytes: 5 * MiB, chunked: true });
    expect(answer.status).toBe(200);
    expect(answer.closedByServer).toBe(true);
  });

  test("a body read to its end keeps the connection open for the next request", async () => {
    const answer = await rawRequest(s.server.url, { method: "POST", path: "/v1/auth/login", headers: { "content-type": "application/json" }, bodyBytes: 20, fill: " ", prefix: "{}" });
    expect(answer.status).toBe(422);
    expect(answer.headers.connection).toBeUndefined();
    expect(answer.closedByServer).toBe(false);
  });
});
