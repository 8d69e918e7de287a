// parley backup and restore, with real processes: an archive taken while the server is being written
// to restores into another directory with identical row counts and file checksums, and the restored
// instance serves (and erases) its own copies of the recordings.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readTar } from "../../src/cli/tar.ts";
import type { BackupManifest } from "../../src/cli/backup.ts";
import { tableCounts } from "../../src/cli/backup.ts";
import { Database } from "../../src/db/native.ts";
import { ApiClient } from "../helpers/client.ts";
import { FROM_SOURCE, runParley, spawnServer } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("parley-backup-test-");

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function manifestOf(archive: string): BackupManifest {
  const first = readTar(archive).next().value!;
  expect(first.name).toBe("manifest.json");
  return JSON.parse(new TextDecoder().decode(first.data));
}

describe("backup and restore", () => {
  test("a backup taken under write load restores elsewhere with the same rows and files, and the copy serves its own recordings", async () => {
    const source = tempDir();
    const server = await spawnServer(FROM_SOURCE, ["--data-dir", source]);
    const archive = join(tempDir(), "parley.tar");
    let callId = "";
    try {
      const api = new ApiClient(server.url);
      const token = (await api.post("/v1/auth/register", { email: "backup@example.test", password: "long enough pass" })).body.access_token;
      const key = (await api.post("/v1/api-keys", { name: "ops", scope: "admin" }, { token })).body.key;
      const as = { token: key };
      const agent = (await api.post("/v1/agents", { name: "Recorded", first_message: "Hello there." }, as)).body.id;
      const number = (await api.post("/v1/phone-numbers/buy", { area_code: "415" }, as)).body.id;
      await api.post(`/v1/phone-numbers/${number}/assign`, { agent_id: agent }, as);
      // A call that is answered, hears the greeting and hangs up: it leaves a recording.
      callId = (await api.post("/v1/calls/outbound", { agent_id: agent, to: "+12125550150", simulation: { behaviour: "hang_up", hang_up_after_ms: 1500 } }, as)).body.id;
      for (let i = 0; i < 100 && (await api.get(`/v1/calls/${callId}`, as)).body.status !== "completed"; i++) await Bun.sleep(100);
      expect((await api.get(`/v1/calls/${callId}/recording`, as)).status).toBe(200);

      // Write load while the backup runs: agents, keys and calls keep coming.
      let writing = true;
      const load = (async () => {
        for (let i = 0; writing; i++) {
          await api.post("/v1/agents", { name: `Load ${i}` }, as);
          await api.post("/v1/api-keys", { name: `load ${i}`, scope: "read-only" }, { token });
          if (i % 5 === 0) await api.post("/v1/calls/outbound", { agent_id: agent, to: "+12125550101" }, as); // busy: ends at once
        }
      })();
      await Bun.sleep(300);
      const backup = await runParley(FROM_SOURCE, ["backup", "--out", archive, "--include-key", "--data-dir", source]);
      writing = false;
      await load;
      expect(backup.exitCode).toBe(0);
      expect(backup.stdout).toContain("backup written");
      expect(backup.stderr).toMatch(/backup: database \d+%/);
      expect(statSync(archive).mode & 0o777).toBe(0o600);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    const manifest = manifestOf(archive);
    expect(manifest.includes_key).toBe(true);
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(["parley.db", "instance.key", expect.stringMatching(new RegExp(`^recordings/ws_\\w+/${callId}\\.wav$`))]));
    expect(manifest.tables.agents).toBeGreaterThan(1);

    const target = join(tempDir(), "restored");
    const restored = await runParley(FROM_SOURCE, ["restore", archive, "--data-dir", target]);
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout).toContain(`into ${target}`);
    // R9: identical row counts and file checksums.
    const db = new Database(join(target, "parley.db"), { readonly: true });
    expect(tableCounts(db)).toEqual(manifest.tables);
    const stored = (db.prepare("SELECT recording_path FROM calls WHERE id = ?").get(callId) as { recording_path: string }).recording_path;
    db.close();
    expect(stored).toMatch(/^recordings\//); // relative: the copy reads its own files
    for (const file of manifest.files) expect(`${file.path} ${sha256(join(target, file.path))}`).toBe(`${file.path} ${file.sha256}`);

    const copy = await spawnServer(FROM_SOURCE, ["--data-dir", target]);
    try {
      const api = new ApiClient(copy.url);
      const login = await api.post("/v1/auth/login", { email: "backup@example.test", password: "long enough pass" });
      expect(login.status).toBe(200);
      const as = { token: login.body.access_token };
      const wav = await fetch(`${copy.url}/v1/calls/${callId}/recording`, { headers: { authorization: `Bearer ${as.token}` } });
      expect(wav.status).toBe(200);
      expect(Buffer.from(await wav.arrayBuffer()).equals(readFileSync(join(target, stored)))).toBe(true);
      // Erasing in the copy removes the copy's file, never the original's.
      expect((await api.delete(`/v1/calls/${callId}`, as)).status).toBe(204);
      expect(existsSync(join(target, stored))).toBe(false);
      expect(existsSync(join(source, stored))).toBe(true);
    } finally {
      expect(await copy.stop()).toBe(0);
    }
  }, 120_000);

  test("restore refuses a non-empty target and a damaged archive, and leaves nothing behind", async () => {
    const source = tempDir();
    expect((await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", source])).exitCode).toBe(0);
    const archive = join(tempDir(), "b.tar");
    expect((await runParley(FROM_SOURCE, ["backup", "--out", archive, "--data-dir", source])).exitCode).toBe(0);
    expect(manifestOf(archive).includes_key).toBe(false);
    const busy = await runParley(FROM_SOURCE, ["restore", archive, "--data-dir", source]);
    expect(busy.exitCode).toBe(1);
    expect(busy.stderr).toContain("is not empty");
    const bytes = readFileSync(archive);
    bytes[bytes.length - 2048] ^= 0xff; // inside the database's last block
    const damaged = join(tempDir(), "damaged.tar");
    await Bun.write(damaged, bytes);
    const target = join(tempDir(), "never");
    const result = await runParley(FROM_SOURCE, ["restore", damaged, "--data-dir", target]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/damaged/);
    expect(existsSync(target)).toBe(false);
  }, 60_000);
});
