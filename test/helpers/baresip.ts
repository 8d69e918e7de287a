// Debian's baresip as the far end of SIP tests: started headless with a generated config, audio
// from a WAV file (aufile), both directions dumped to WAV files (sndfile), and driven over its TCP
// control socket (netstring JSON commands in, call events out).
import { spawn, type Subprocess } from "bun";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { encodeWav } from "../../src/voice/media/wav-format.ts";

/** A minute of 8 kHz silence: baresip's source when the test has nothing to say. */
function silence(dir: string): string {
  const path = join(dir, "silence.wav");
  writeFileSync(path, encodeWav(new Int16Array(8000 * 60), { sampleRate: 8000, channels: 1 }));
  return path;
}

export const baresipAvailable = Bun.which("baresip") !== null;
// CI installs it (.ci/run): there a missing baresip is a broken setup, not a reason to skip.
if (!baresipAvailable && process.env.CI) throw new Error("baresip is not installed: apt-get install baresip-core");

export async function freePort(kind: "udp" | "tcp" = "udp"): Promise<number> {
  if (kind === "udp") {
    const socket = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0 });
    const port = socket.port;
    socket.close();
    return port;
  }
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export interface BaresipEvent {
  type: string;
  param?: string;
  peeruri?: string;
  [key: string]: unknown;
}

export interface RtpDirection {
  packets: number;
  lost: number;
  jitterMs: number;
}

export interface BaresipOptions {
  /** 8 kHz mono 16-bit WAV played into every call (silence when absent). */
  audioIn?: string;
  answer: "auto" | "manual";
  /** baresip's own user part (sip:user@127.0.0.1:port). */
  user?: string;
}

export class Baresip {
  readonly events: BaresipEvent[] = [];
  readonly dir: string;
  private process: Subprocess | null = null;
  private control: import("bun").Socket<undefined> | null = null;
  private buffer = "";
  private waiters: (() => void)[] = [];
  private constructor(
    readonly sipPort: number,
    private readonly controlPort: number,
    dir: string,
  ) {
    this.dir = dir;
  }

  get uri(): string {
    return `sip:127.0.0.1:${this.sipPort}`;
  }

  /**
   * A baresip on fresh ports. The ports are free when chosen but another test may take one before
   * baresip binds it (then it never opens its control port): such a start is retried on new ports.
   */
  static async start(options: BaresipOptions): Promise<Baresip> {
    for (let attempt = 1; ; attempt++) {
      const baresip = await Baresip.launch(options);
      try {
        await baresip.connect();
        return baresip;
      } catch (error) {
        baresip.process?.kill(9);
        if (attempt === 3) throw new Error(`${(error as Error).message} (3 starts); baresip said: ${baresip.output.slice(-2000)}`);
      }
    }
  }

  private static async launch(options: BaresipOptions): Promise<Baresip> {
    const dir = mkdtempSync(join(tmpdir(), "baresip-"));
    const sipPort = await freePort("udp");
    const controlPort = await freePort("tcp");
    const rtpBase = 30000 + Math.floor(Math.random() * 400) * 50;
    const config = [
      `sip_listen 127.0.0.1:${sipPort}`,
      "module_path /usr/lib/baresip/modules",
      "module g711.so",
      "module aufile.so",
      "module sndfile.so",
      "module_app account.so",
      "module_app menu.so",
      "module_app ctrl_tcp.so",
      `ctrl_tcp_listen 127.0.0.1:${controlPort}`,
      `audio_source aufile,${options.audioIn ?? silence(dir)}`,
      `snd_path ${dir}`,
      "audio_codecs PCMU,PCMA",
      `rtp_ports ${rtpBase}-${rtpBase + 49}`,
      "sip_trans_def udp",
      // At a call's end baresip prints its RTP counts and what the far end's RTCP said of its stream.
      "rtp_stats yes",
    ];
    writeFileSync(join(dir, "config"), config.join("\n") + "\n");
    writeFileSync(join(dir, "accounts"), `<sip:${options.user ?? "far"}@127.0.0.1>;regint=0;answermode=${options.answer};audio_codecs=PCMU,PCMA\n`);
    writeFileSync(join(dir, "contacts"), "");
    const baresip = new Baresip(sipPort, controlPort, dir);
    baresip.process = spawn(["baresip", "-f", dir], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    void baresip.collect(baresip.process.stdout as ReadableStream<Uint8Array>);
    void baresip.collect(baresip.process.stderr as ReadableStream<Uint8Array>);
    return baresip;
  }

  private async connect(): Promise<void> {
    // baresip opens it within a second; one that has not in 5 s lost a port to another test.
    const deadline = Date.now() + 5_000;
    let exited = false;
    void this.process?.exited.then(() => (exited = true));
    for (;;) {
      try {
        this.control = await Bun.connect({
          hostname: "127.0.0.1",
          port: this.controlPort,
          socket: {
            data: (_socket, chunk) => this.receive(Buffer.from(chunk).toString("utf8")),
          },
        });
        return;
      } catch (error) {
        if (exited || Date.now() > deadline) throw new Error(`baresip did not open its control port${exited ? " (it exited)" : ""}: ${(error as Error).message}`);
        await Bun.sleep(100);
      }
    }
  }

  private receive(text: string): void {
    this.buffer += text;
    for (;;) {
      const colon = this.buffer.indexOf(":");
      if (colon < 0) return;
      const length = Number(this.buffer.slice(0, colon));
      if (this.buffer.length < colon + 1 + length + 1) return;
      const json = this.buffer.slice(colon + 1, colon + 1 + length);
      this.buffer = this.buffer.slice(colon + 1 + length + 1);
      try {
        const message = JSON.parse(json);
        if (message.event) this.events.push(message as BaresipEvent);
      } catch {
        // not JSON: ignored
      }
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  command(command: string, params = ""): void {
    const json = JSON.stringify({ command, params, token: String(Date.now()) });
    this.control!.write(`${Buffer.byteLength(json)}:${json},`);
  }

  async waitFor(type: string, timeoutMs = 20_000, from = 0): Promise<BaresipEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((event) => event.type === type);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`baresip: no ${type} within ${timeoutMs} ms; saw ${this.events.map((e) => `${e.type}${e.param ? `(${e.param})` : ""}`).join(", ")}\n${this.output.slice(-3000)}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The WAV files sndfile wrote: `dec` is what baresip heard, `enc` what it sent. */
  recordings(): { heard: string[]; sent: string[] } {
    const files = readdirSync(this.dir).filter((name) => name.endsWith(".wav"));
    return { heard: files.filter((f) => f.includes("-dec")).map((f) => join(this.dir, f)), sent: files.filter((f) => f.includes("-enc")).map((f) => join(this.dir, f)) };
  }

  async stop(): Promise<void> {
    try {
      this.command("quit");
    } catch {
      // already gone
    }
    this.control?.end();
    const process = this.process;
    if (!process) return;
    const exited = await Promise.race([process.exited.then(() => true), Bun.sleep(2000).then(() => false)]);
    if (!exited) process.kill(9);
  }

  /**
   * The RTP summary baresip printed when its last call ended (`rtp_stats`): per direction, packets and,
   * from the RTCP reports, lost and jitter. `transmit.lost` is what the far end's receiver reports said
   * of baresip's stream; null before a call has ended.
   */
  rtpSummary(): { transmit: RtpDirection; receive: RtpDirection } | null {
    const table = this.output.split(/^audio\s+Transmit:\s+Receive:$/m).at(-1);
    if (table === undefined || table === this.output) return null;
    const row = (name: string) => {
      const match = new RegExp(`^${name}:\\s+(-?[\\d.]+)\\s+(-?[\\d.]+)`, "m").exec(table);
      return match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
    };
    const [packets, lost, jitter] = [row("packets"), row("lost"), row("jitter")];
    return {
      transmit: { packets: packets[0], lost: lost[0], jitterMs: jitter[0] },
      receive: { packets: packets[1], lost: lost[1], jitterMs: jitter[1] },
    };
  }

  /** What baresip printed, for the failure message of a test that went wrong. */
  output = "";

  private async collect(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.output += decoder.decode(chunk);
  }
}
