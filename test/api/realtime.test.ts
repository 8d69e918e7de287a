// GET /v1/realtime/health: which voice engines this instance has, and whether an agent can hold a call.
import { describe, expect, test } from "bun:test";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("realtime");
const get = (query = "", token = s.user.token) => s.server.api.get(`/v1/realtime/health${query}`, { token });
const sphinx = pocketsphinxAvailability();

describe("voice configuration check", () => {
  test("names the built-in voices and says plainly whether an offline recogniser is installed", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body.engines.builtin_speech).toEqual({ status: "ok", detail: expect.stringContaining("kal16") });
    if (sphinx.available) {
      expect(res.body).toMatchObject({ status: "ok", engines: { offline_recognition: { status: "ok" } }, agent: null });
    } else {
      expect(res.body).toMatchObject({ status: "degraded", engines: { offline_recognition: { status: "unavailable" } } });
      expect(res.body.engines.offline_recognition.detail).toContain("apt-get install");
    }
  });

  test("with agent_id: whether that agent can take a real call, and what stops it", async () => {
    const plain = await s.server.api.post("/v1/agents", { name: "Default engines", first_message: "Hi" }, { token: s.user.token });
    const res = await get(`?agent_id=${plain.body.id}`);
    if (sphinx.available) expect(res.body).toMatchObject({ status: "ok", agent: { id: plain.body.id, ready: true, problems: [] } });
    else expect(res.body.agent).toMatchObject({ ready: false, problems: [{ field: "transcriber.provider_id" }] });

    // A voice the built-in engine does not have is named by its field.
    const odd = await s.server.api.post("/v1/agents", { name: "Odd voice", voice: { provider_id: "builtin", voice_id: "kal16", speed: 1 } }, { token: s.user.token });
    const { config } = s.server.ctx.sqlite.prepare("SELECT config FROM agents WHERE id = ?").get(odd.body.id) as { config: string };
    const stored = JSON.parse(config);
    stored.voice.voice_id = "nobody";
    s.server.ctx.sqlite.prepare("UPDATE agents SET config = ? WHERE id = ?").run(JSON.stringify(stored), odd.body.id);
    const broken = await get(`?agent_id=${odd.body.id}`);
    expect(broken.body.status).toBe("degraded");
    expect(broken.body.agent.problems).toContainEqual({ field: "voice.voice_id", message: "the built-in engine has no voice nobody" });
  });

  test("another workspace's agent is not found here", async () => {
    const other = await registerUser(s.server.api, "realtime-other");
    const agent = await s.server.api.post("/v1/agents", { name: "Theirs" }, { token: other.token });
    const res = await get(`?agent_id=${agent.body.id}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: "agent_id", message: `no agent ${agent.body.id} in this workspace` }]);
  });
});
