// TLS to PostgreSQL as libpq users expect it (issue 35): a server with a certificate signed by a CA
// made here (openssl), that accepts only TLS (hostssl). sslmode=require encrypts without checking the
// certificate (with sslrootcert it checks the chain, as verify-ca); verify-full also checks that the
// certificate names the host, and a mismatch stops the start with one line; sslmode=disable against
// this server is one line saying it wants TLS.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres } from "../helpers/postgres.ts";
import { FROM_SOURCE, runParley } from "../helpers/process.ts";
import { createTestContext } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-pgtls-"));
const file = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });

// A CA, and a server certificate it signs for the name "localhost" only (not 127.0.0.1).
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", file("ca.key"), "-out", file("ca.crt"), "-days", "2", "-subj", "/CN=Parley test CA");
openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=localhost");
writeFileSync(file("san.cnf"), "subjectAltName=DNS:localhost\n");
openssl("x509", "-req", "-in", file("server.csr"), "-CA", file("ca.crt"), "-CAkey", file("ca.key"), "-CAcreateserial", "-out", file("server.crt"), "-days", "2", "-extfile", file("san.cnf"));
// Another CA, which did not sign the server's certificate.
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", file("other.key"), "-out", file("other.crt"), "-days", "2", "-subj", "/CN=Someone else");

const pg = startPostgres({ tls: { cert: file("server.crt"), key: file("server.key"), only: true } });
afterAll(() => {
  pg.stop();
  rmSync(dir, { recursive: true, force: true });
});
let databases = 0;
const database = () => {
  const name = `tls_${++databases}`;
  pg.sql(`CREATE DATABASE ${name}`);
  return name;
};
const url = (host: string, name: string, query: string) => `postgres://parley@${host}:${pg.port}/${name}?${query}`;

describe("a server that accepts only TLS", () => {
  test.each([
    ["sslmode=require (encrypted, the certificate unchecked)", "127.0.0.1", "sslmode=require"],
    ["sslmode=require with sslrootcert (the chain checked, as verify-ca; not the name)", "127.0.0.1", `sslmode=require&sslrootcert=${file("ca.crt")}`],
    ["sslmode=verify-ca (the chain checked, not the name)", "127.0.0.1", `sslmode=verify-ca&sslrootcert=${file("ca.crt")}`],
    ["sslmode=verify-full to the name the certificate holds", "localhost", `sslmode=verify-full&sslrootcert=${file("ca.crt")}`],
    ["no sslmode (libpq's default, prefer)", "127.0.0.1", ""],
  ])("%s: Parley starts on it, over TLS", (_name, host, query) => {
    const { ctx, close } = createTestContext({ databaseUrl: url(host, database(), query) });
    try {
      expect(ctx.sqlite.prepare("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").get()).toEqual({ ssl: 1 });
      expect(ctx.migrations.total).toBeGreaterThan(0);
    } finally {
      close();
    }
  });

  async function refused(target: string, expected: RegExp) {
    const dataDir = join(dir, `data-${++databases}`);
    const result = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--database-url", target]);
    expect(result.exitCode).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1); // one line, no stack trace
    expect(lines[0]).toMatch(expected);
    expect(existsSync(dataDir)).toBe(false);
  }

  test("sslmode=verify-full to a name the certificate does not hold: one line, nothing started", async () => {
    await refused(url("127.0.0.1", "postgres", `sslmode=verify-full&sslrootcert=${file("ca.crt")}`), /^parley: error: --database-url: TLS to 127\.0\.0\.1:\d+ failed \(sslmode=verify-full\): Hostname\/IP does not match certificate's altnames/);
  });

  test("sslmode=verify-full against a CA that did not sign the certificate: one line", async () => {
    await refused(url("localhost", "postgres", `sslmode=verify-full&sslrootcert=${file("other.crt")}`), /^parley: error: --database-url: TLS to localhost:\d+ failed \(sslmode=verify-full\): unable to verify .*checked against sslrootcert .*other\.crt/);
  });

  test("sslmode=require with a CA that did not sign the certificate: the chain is checked, one line", async () => {
    await refused(url("127.0.0.1", "postgres", `sslmode=require&sslrootcert=${file("other.crt")}`), /^parley: error: --database-url: TLS to 127\.0\.0\.1:\d+ failed \(sslmode=require\): unable to verify/);
  });

  test("sslmode=disable: one line saying the server wants TLS", async () => {
    await refused(url("127.0.0.1", "postgres", "sslmode=disable"), /^parley: error: --database-url: the server at 127\.0\.0\.1:\d+ accepts only TLS connections, and sslmode=disable does not use TLS/);
  });
});
