// The watchdog's other duties: a call past its max duration whose session failed to end it, and a
// call the carrier never reports on. The fake clock is moved here, which would end any other live
// call too, so these tests run one at a time in a file of their own.
import { afterAll, expect, test } from "bun:test";
import { watchLiveCalls } from "../../../src/voice/runtime/watchdog.ts";
import { CallDriver, delivery, farEnd } from "../../helpers/call-driver.ts";
import { serverWithUser } from "../../helpers/fixtures.ts";
import { startReceiver } from "../../helpers/webhook-receiver.ts";

const s = serverWithUser("watchdog");
const hooks = startReceiver();
afterAll(() => hooks.stop());

test("a call still live past max duration (by the clock) is ended max_duration by the watchdog, with its terminal events", async () => {
  const calls = new CallDriver(s.server, () => s.user.token);
  const agent = await calls.createAgent({ name: "Overtime", first_message: "Hello, this is Acme.", webhook_url: hooks.url });
  const callId = await calls.place(agent.id, { behaviour: "silent" });
  await calls.waitFor(callId, (c) => c.status === "in_progress");
  // Within max duration plus grace nothing happens.
  s.server.clock.advance(120_000 + 5_000);
  expect(watchLiveCalls(s.server.ctx)).toEqual({ vanished: 0, overtime: 0, unanswered: 0 });
  s.server.clock.advance(1_000);
  expect(watchLiveCalls(s.server.ctx)).toEqual({ vanished: 0, overtime: 1, unanswered: 0 });
  const call = await calls.finalized(callId);
  expect(call).toMatchObject({ status: "completed", end_reason: "max_duration" });
  // The session measured the audio it really had, not the clock's jump.
  expect(call.duration_ms).toBeLessThan(10_000);
  const timeline = await calls.timeline(callId);
  expect(timeline.find((e) => e.type === "carrier")?.data).toEqual({ detail: "the watchdog ended a call past its max duration" });
  const ended = await delivery(hooks, (body) => body.type === "call.ended");
  expect(ended.body.data).toMatchObject({ status: "completed", end_reason: "max_duration" });
  expect(farEnd(callId).ended).toBe("local_hangup");
}, 30_000);

test("a call the carrier never reports on (no answer, no failure) does not ring forever: the watchdog ends it no_answer", async () => {
  const calls = new CallDriver(s.server, () => s.user.token);
  const agent = await calls.createAgent({ name: "Ringing", first_message: "Hello, this is Acme.", webhook_url: hooks.url });
  const callId = await calls.place(agent.id, { behaviour: "answer", ring_ms: 60_000 });
  await calls.waitFor(callId, (c) => c.status === "ringing");
  expect(watchLiveCalls(s.server.ctx, { ringLimitMs: 2_000 })).toEqual({ vanished: 0, overtime: 0, unanswered: 0 });
  await Bun.sleep(300);
  expect(watchLiveCalls(s.server.ctx, { ringLimitMs: 200 })).toEqual({ vanished: 0, overtime: 0, unanswered: 1 });
  const call = await calls.finalized(callId);
  expect(call).toMatchObject({ status: "no_answer", end_reason: "no_answer", started_at: null, duration_ms: 0 });
  const timeline = await calls.timeline(callId);
  expect(timeline.find((e) => e.type === "carrier")?.data.detail).toMatch(/^the carrier said neither answered nor failed in \d+ s$/);
  const ended = await delivery(hooks, (body) => body.type === "call.ended" && body.call_id === callId);
  expect(ended.body.data).toMatchObject({ status: "no_answer", end_reason: "no_answer" });
  // The far end stops ringing too.
  expect(farEnd(callId)).toMatchObject({ ended: "local_hangup", callee: null });
}, 30_000);
