// A campaign dialing while its server is SIGKILLed at random moments: after restarts the campaign
// still completes, no contact ever got two calls for one attempt, and the database is intact.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "../helpers/client.ts";
import { callingAgent, campaignWithContacts } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { crashTestDatabase } from "../helpers/crash-database.ts";

const CONTACTS = 60;
const dir = mkdtempSync(join(tmpdir(), "parley-campaign-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const database = crashTestDatabase(dir);

// Short leases so a killed process's jobs come back within a second or two, not 30 s.
const start = () => spawnServer(FROM_SOURCE, ["--data-dir", dir, ...database.args, "--job-lease-seconds", "1"], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "100000" } });

test(
  "SIGKILL mid-campaign, restart: one call per contact per attempt, and the campaign completes",
  async () => {
    let server: ServerProcess = await start();
    let api = new ApiClient(server.url);
    const owner = await registerUser(api, "crash");
    const key = (await createKey(api, owner.token, "admin")).secret;
    const agent = await callingAgent(api, key);
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1${["415", "212", "303"][i % 3]}55501${String(10 + Math.floor(i / 3)).padStart(2, "0")}`);
    const id = await campaignWithContacts(
      api,
      server.url,
      key,
      {
        agent_id: agent.agentId,
        concurrency: 4,
        calls_per_minute: 1200,
        simulation: { behaviour: "hang_up", hang_up_after_ms: 300, ring_ms: 50 },
        // Calls cut off by a crash end `failed` (retries have their own test; here they would wait a minute).
        retry: { on: [], max_attempts: 1, delay_minutes: 1 },
      },
      `phone,n\n${phones.map((p, i) => `${p},${i}`).join("\n")}\n`,
    );
    expect((await api.post(`/v1/campaigns/${id}/start`, undefined, { token: key })).status).toBe(200);

    let kills = 0;
    for (let round = 0; round < 4; round++) {
      await Bun.sleep(400 + Math.random() * 800);
      server.child.kill("SIGKILL");
      await server.child.exited;
      kills++;
      server = await start();
      api = new ApiClient(server.url);
    }
    const deadline = Date.now() + 60_000;
    let campaign = (await api.get(`/v1/campaigns/${id}`, { token: key })).body;
    while (campaign.status === "running" && Date.now() < deadline) {
      await Bun.sleep(250);
      campaign = (await api.get(`/v1/campaigns/${id}`, { token: key })).body;
    }
    expect(await server.stop()).toBe(0);

    const db = database.open();
    const contacts = db.prepare("SELECT id, phone, status, attempts FROM campaign_contacts WHERE campaign_id = ?").all(id) as { id: number; phone: string; status: string; attempts: number }[];
    const callsPerContact = new Map(
      (db.prepare("SELECT json_extract(metadata, '$.contact_id') AS contact, count(*) AS n FROM calls WHERE campaign_id = ? GROUP BY contact").all(id) as { contact: number; n: number }[]).map((r) => [r.contact, r.n]),
    );
    const live = (db.prepare("SELECT count(*) AS n FROM calls WHERE campaign_id = ? AND status IN ('queued', 'ringing', 'in_progress')").get(id) as { n: number }).n;
    const integrity = database.integrity(db);
    db.close();

    expect(kills).toBe(4);
    expect(campaign.status).toBe("completed");
    expect(contacts).toHaveLength(CONTACTS);
    expect(contacts.filter((c) => c.status !== "completed" && c.status !== "failed")).toEqual([]);
    // The heart of it: every attempt placed exactly one call.
    expect(contacts.filter((c) => (callsPerContact.get(c.id) ?? 0) !== c.attempts)).toEqual([]);
    expect(live).toBe(0);
    expect(integrity).toBe("ok");
    const cutOff = contacts.filter((c) => c.status === "failed").length;
    console.log(`campaign crash test: ${kills} SIGKILLs, ${contacts.reduce((n, c) => n + c.attempts, 0)} calls for ${CONTACTS} contacts (${cutOff} cut off by a crash)`);
  },
  120_000,
);
