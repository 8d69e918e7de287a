// The README's haproxy configuration ("Running a cluster"), taken out of README.md and changed only as
// its step 4 tells an operator (the nodes' addresses, the certificate, here also the runtime socket's
// path), run by Debian's haproxy in front of three real nodes on one PostgreSQL database: requests
// reach all three, node-to-node routes answer the nodes' addresses only, a phone's WebSocket passes
// through to the node its host name names, and a node killed outright is taken out by the health
// check while every request goes on succeeding.
import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { connect as connectTcp } from "node:net";
import { connect } from "node:tls";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { callingAgent } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freePort, freshDatabase } from "../helpers/postgres.ts";
import { ROOT } from "../helpers/process.ts";

const HAPROXY = "/usr/sbin/haproxy";
const DOMAIN = "parley.example.com";
const NODES = 3;

/** The fenced block after the README's haproxy.cfg marker, its list-item indent removed. */
export function readmeHaproxyConfig(): string {
  const match = /<!-- haproxy\.cfg:[^\n]*-->\n( *)```haproxy\n([\s\S]*?)\n *```/.exec(readFileSync(join(ROOT, "README.md"), "utf8"));
  if (!match) throw new Error("README.md has no haproxy.cfg block");
  const indent = match[1].length;
  return match[2]
    .split("\n")
    .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
    .join("\n");
}

const dir = mkdtempSync(join(tmpdir(), "parley-haproxy-"));
const url = freshDatabase();
const db = new SQL(url);
const http = freePort();
const https = freePort();
const socket = join(dir, "admin.sock");
let cluster: Nodes;
let haproxy: ReturnType<typeof Bun.spawn> | undefined;
let haproxyLog = "";

beforeAll(async () => {
  cluster = await startNodes(url, NODES, (n) => ["--node-name", `node-${n + 1}`, "--node-url", `https://node-${n + 1}.${DOMAIN}`, "--public-url", `https://${DOMAIN}`, "--trusted-proxies", "127.0.0.1"]);
  // A certificate for the domain and every node's name, as the README asks (self-signed here).
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=${DOMAIN}`, "-addext", `subjectAltName=DNS:${DOMAIN},DNS:*.${DOMAIN}`, "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
  writeFileSync(join(dir, "parley.pem"), readFileSync(join(dir, "cert.pem"), "utf8") + readFileSync(join(dir, "key.pem"), "utf8"));

  let config = readmeHaproxyConfig();
  // The nodes' addresses: where haproxy reaches each, and where the nodes' own requests come from.
  cluster.nodes.forEach((node, n) => (config = config.replaceAll(`10.0.0.1${n + 1}:8080`, new URL(node.url).host).replaceAll(`10.0.0.1${n + 1}`, "127.0.0.1")));
  config = config
    .replace("bind :80\n", `bind 127.0.0.1:${http}\n`)
    .replace("bind :443 ssl crt /etc/haproxy/certs/parley.pem", `bind 127.0.0.1:${https} ssl crt ${join(dir, "parley.pem")}`)
    .replace("/run/haproxy/admin.sock", socket);
  // Only root may switch to the haproxy user; a test run by anyone else keeps its own.
  if (userInfo().uid !== 0) config = config.replace(/^\s*(user|group) haproxy\n/gm, "");
  expect(config).not.toMatch(/10\.0\.0\.|\/etc\/haproxy|\/run\/haproxy|bind :/);
  writeFileSync(join(dir, "haproxy.cfg"), `${config}\n`);
  const check = spawnSync(HAPROXY, ["-c", "-f", join(dir, "haproxy.cfg")], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refuses the README's configuration:\n${check.stdout}${check.stderr}`);
  haproxy = Bun.spawn([HAPROXY, "-db", "-f", join(dir, "haproxy.cfg")], { stdout: "pipe", stderr: "pipe" });
  void new Response(haproxy.stderr as ReadableStream).text().then((text) => (haproxyLog += text));
  await until(async () => (await serverStates()).filter(([, , state]) => state === "UP").length === NODES * 2, 20_000, "haproxy to see every node up");
}, 90_000);

afterAll(async () => {
  haproxy?.kill();
  await haproxy?.exited;
  await cluster?.stop();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); await Bun.sleep(200)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${haproxyLog}`);
  }
}

/** haproxy's runtime API: one command on the admin socket, its answer. */
async function admin(command: string): Promise<string> {
  if (!existsSync(socket)) return "";
  let answer = "";
  const { promise, resolve } = Promise.withResolvers<string>();
  await Bun.connect({
    unix: socket,
    socket: {
      open: (s) => void s.write(`${command}\n`),
      data: (_s, data) => void (answer += data.toString()),
      close: () => resolve(answer),
      error: () => resolve(answer),
    },
  });
  return promise;
}

/** [backend, server, UP/DOWN/…] for every server haproxy knows. */
async function serverStates(): Promise<[string, string, string][]> {
  const csv = await admin("show stat");
  return csv
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split(","))
    .filter(([, server]) => server !== "FRONTEND" && server !== "BACKEND")
    .map(([backend, server, ...rest]) => [backend, server, rest[15]]);
}

/** A request through haproxy's TLS port, to the instance's name or a node's. */
function through(path: string, options: { host?: string; method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return fetch(`https://127.0.0.1:${https}${path}`, {
    method: options.method ?? "GET",
    headers: { host: options.host ?? DOMAIN, ...options.headers },
    body: options.body,
    tls: { rejectUnauthorized: false },
  } as RequestInit);
}

/** The status of a request through haproxy's TLS port sent from another loopback address than the nodes'. */
function statusFromElsewhere(method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const tcp = connectTcp({ host: "127.0.0.1", port: https, localAddress: "127.0.0.2" });
    const socket = connect({ socket: tcp, rejectUnauthorized: false, servername: DOMAIN }, () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nhost: node-1.${DOMAIN}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`),
    );
    socket.on("data", (data) => (answer += data));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0)));
  });
}

/** Which node answered each of `count` concurrent requests for the health check. */
async function answeredBy(count: number): Promise<string[]> {
  const responses = await Promise.all(Array.from({ length: count }, () => through("/v1/health")));
  expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
  return responses.map((r) => r.headers.get("x-parley-node") ?? "none");
}

test("requests through haproxy are spread over all three nodes; plain http is sent to https", async () => {
  const seen = new Map<string, number>();
  for (let round = 0; round < 5; round++) for (const node of await answeredBy(12)) seen.set(node, (seen.get(node) ?? 0) + 1);
  console.log(`60 requests through haproxy: ${[...seen].map(([node, n]) => `${node} ${n}`).join(", ")}`);
  expect([...seen.keys()].sort()).toEqual(["node-1", "node-2", "node-3"]);

  const plain = await fetch(`http://127.0.0.1:${http}/v1/health`, { headers: { host: DOMAIN }, redirect: "manual" });
  expect(plain.status).toBe(302);
  expect(plain.headers.get("location")).toBe(`https://${DOMAIN}/v1/health`);
  // Node-to-node routes answer the nodes' addresses only (Parley itself then wants a node's signature).
  expect((await through("/internal/v1/calls/call_x/control", { host: `node-1.${DOMAIN}`, method: "POST" })).status).toBe(401);
  expect(await statusFromElsewhere("POST", "/internal/v1/calls/call_x/control")).toBe(404);
  expect(await statusFromElsewhere("GET", "/v1/health")).toBe(200);
  // A node's own name reaches that node only.
  for (let n = 1; n <= NODES; n++) expect((await through("/v1/health", { host: `node-${n}.${DOMAIN}` })).headers.get("x-parley-node")).toBe(`node-${n}`);
}, 30_000);

test("a phone's WebSocket passes through haproxy to the node its host name names, which holds the call", async () => {
  const viaProxy = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    through(path, { method: init.method, body: init.body === undefined ? undefined : JSON.stringify(init.body), headers: { "content-type": "application/json", ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } });
  const node1 = cluster.nodes[0].api;
  const owner = await registerUser(node1, "haproxy");
  const key = (await createKey(node1, owner.token, "admin")).secret;
  const { number } = await callingAgent(node1, key);
  expect((await viaProxy("/v1/auth/me", { token: key })).status).toBe(200);

  const messages: (string | number)[] = [];
  const socketUrl = `wss://127.0.0.1:${https}/v1/telephony/simulated/softphone?to=${encodeURIComponent(number)}&encoding=pcmu`;
  const phone = new WebSocket(socketUrl, { headers: { host: `node-2.${DOMAIN}`, authorization: `Bearer ${key}` }, tls: { rejectUnauthorized: false } } as unknown as string[]);
  phone.binaryType = "arraybuffer";
  phone.addEventListener("message", (event) => messages.push(typeof event.data === "string" ? event.data : (event.data as ArrayBuffer).byteLength));
  const closed = new Promise<number>((resolve) => phone.addEventListener("close", (event) => resolve(event.code)));
  await new Promise<void>((resolve, reject) => {
    phone.addEventListener("open", () => resolve());
    phone.addEventListener("error", () => reject(new Error(`the phone could not connect through haproxy\n${haproxyLog}`)));
  });
  // The call rings and is answered over the socket; the agent's greeting comes back as audio frames
  // while the phone talks (silence, 20 ms frames), so the socket carries both ways through haproxy.
  const silence = new Uint8Array(160).fill(0xff);
  const talking = setInterval(() => phone.readyState === WebSocket.OPEN && phone.send(silence), 20);
  try {
    for (const deadline = Date.now() + 15_000; messages.filter((m) => typeof m === "number").length < 25; await Bun.sleep(50)) {
      if (Date.now() > deadline) throw new Error(`no greeting through haproxy: ${JSON.stringify(messages.slice(0, 5))}`);
    }
  } finally {
    clearInterval(talking);
  }
  const answered = messages.filter((m): m is string => typeof m === "string").map((m) => JSON.parse(m)).find((m) => m.type === "answered");
  expect(answered?.call_id).toMatch(/^call_/);
  const [holder] = await db`SELECT n.name FROM calls c JOIN nodes n ON n.id = c.node_id WHERE c.id = ${answered.call_id}`;
  expect(holder?.name).toBe("node-2");

  phone.send(JSON.stringify({ type: "hangup" }));
  expect(await closed).toBeGreaterThan(0);
  for (const deadline = Date.now() + 10_000; ; await Bun.sleep(100)) {
    const [call] = await db`SELECT status FROM calls WHERE id = ${answered.call_id}`;
    if (call.status === "completed") break;
    if (Date.now() > deadline) throw new Error(`the call is still ${call.status}`);
  }
}, 60_000);

test("a node drained for an upgrade (README's runtime API command) gets no new requests, while its own name still reaches it", async () => {
  expect((await admin("set server parley/node-2 state drain")).trim()).toBe("");
  try {
    const seen = new Set<string>();
    for (let round = 0; round < 4; round++) for (const node of await answeredBy(12)) seen.add(node);
    expect([...seen].sort()).toEqual(["node-1", "node-3"]);
    // A carrier's stream for a call node 2 holds must still get there while its calls finish.
    expect((await through("/v1/health", { host: `node-2.${DOMAIN}` })).headers.get("x-parley-node")).toBe("node-2");
  } finally {
    await admin("set server parley/node-2 state ready");
  }
  await until(async () => new Set(await answeredBy(12)).has("node-2"), 10_000, "node-2 back in rotation");
}, 30_000);

test("a node killed outright: haproxy's health check takes it out, and every request still succeeds on the others", async () => {
  await cluster.kill(2);
  const killedAt = Date.now();
  // Before the check has noticed, connections the dead node refuses are redispatched: none fails.
  const meanwhile: string[] = [];
  const down = async () => (await serverStates()).filter(([, server, state]) => server === "node-3" && state === "DOWN").length === 2;
  while (!(await down())) {
    meanwhile.push(...(await answeredBy(6)));
    await Bun.sleep(50);
    if (Date.now() - killedAt > 15_000) throw new Error(`haproxy still sends to node-3:\n${haproxyLog}`);
  }
  console.log(`node-3 marked DOWN ${Date.now() - killedAt} ms after kill -9; ${meanwhile.length} requests meanwhile, all 200`);
  expect(meanwhile.filter((node) => node === "node-3")).toEqual([]);

  const after = new Set<string>();
  for (let round = 0; round < 4; round++) for (const node of await answeredBy(12)) after.add(node);
  expect([...after].sort()).toEqual(["node-1", "node-2"]);
  // Its own name now reaches no one: haproxy answers for it (its own backend's check failed too).
  expect((await through("/v1/health", { host: `node-3.${DOMAIN}` })).status).toBe(503);
  expect((await serverStates()).filter(([, server]) => server === "node-3").map(([, , state]) => state)).toEqual(["DOWN", "DOWN"]);
}, 60_000);
