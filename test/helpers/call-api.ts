// Helpers for tests that place and inspect calls: waiting on a call's state, reading CSV, and
// measuring a stereo recording channel by channel.
import type { ApiClient } from "./client.ts";

export const LIVE = ["queued", "ringing", "in_progress"];

/** Polls GET /v1/calls/{id} until `done` says so (default: the call has ended and been finalized). */
export async function waitForCall(api: ApiClient, token: string, id: string, done: (call: any) => boolean = (c) => !LIVE.includes(c.status) && c.extracted !== null, timeoutMs = 40_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v1/calls/${id}`, { token });
    if (res.status !== 200) throw new Error(`GET /v1/calls/${id}: ${res.status} ${res.text}`);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`call ${id} still ${res.body.status} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

/** Fetches bytes (recordings), with the status and headers. */
export async function fetchBytes(url: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; lines end in CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell || row.length) throw new Error("CSV does not end with CRLF");
  return rows;
}

/** RMS of one channel (0 left, 1 right) of interleaved stereo samples over [fromMs, toMs). */
export function channelRms(samples: Int16Array, sampleRate: number, channel: 0 | 1, fromMs: number, toMs: number): number {
  const from = Math.floor((fromMs * sampleRate) / 1000);
  const to = Math.min(samples.length / 2, Math.floor((toMs * sampleRate) / 1000));
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[2 * i + channel] ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}
