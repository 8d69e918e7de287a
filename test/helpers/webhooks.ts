import { createHmac } from "node:crypto";
import { afterAll, beforeAll, expect } from "bun:test";
import type { ReceivedRequest } from "./webhook-receiver.ts";
import { registerUser } from "./fixtures.ts";
import { startTestServer, type TestServer } from "./server.ts";

/** Verifies both signature schemes the way a receiver would, independently of the server's code. */
export function verifySignatures(request: ReceivedRequest, secret: string): { brand: boolean; standard: boolean } {
  const brandHeader = request.headers["x-parley-signature"] ?? "";
  const expectedBrand = `sha256=${createHmac("sha256", secret).update(request.body).digest("hex")}`;
  const id = request.headers["webhook-id"];
  const timestamp = request.headers["webhook-timestamp"];
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expectedStandard = `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${request.body}`).digest("base64")}`;
  return {
    brand: brandHeader.split(",").includes(expectedBrand),
    standard: (request.headers["webhook-signature"] ?? "").split(" ").includes(expectedStandard),
  };
}

/** An admin API key: keys never expire, so tests may move the clock by days. */
export async function adminKey(server: TestServer, token: string): Promise<string> {
  const res = await server.api.post("/v1/api-keys", { name: "webhooks admin", scope: "admin" }, { token });
  expect(res.status).toBe(201);
  return res.body.key;
}

export async function createEndpoint(server: TestServer, key: string, url: string, events: string[] = ["call.completed"]) {
  const res = await server.api.post("/v1/webhooks", { url, events }, { token: key });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, secret: res.body.secret as string };
}

/** Lets the runner do everything that is due at the current (fake) time. */
export async function settle(server: TestServer): Promise<void> {
  await server.ctx.jobs.drain();
}

/** A server (short webhook time-out) for the whole file, with a user's workspace and an admin key. */
export function webhookTestServer(): { server: TestServer; key: string; workspaceId: string } {
  const state = {} as { server: TestServer; key: string; workspaceId: string };
  beforeAll(async () => {
    state.server = await startTestServer({ webhookTimeoutMs: 300 });
    const user = await registerUser(state.server.api);
    state.workspaceId = user.workspaceId;
    state.key = await adminKey(state.server, user.token);
  });
  afterAll(() => state.server?.stop());
  return state;
}
