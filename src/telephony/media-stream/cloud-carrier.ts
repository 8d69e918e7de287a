// What the cloud carriers (Twilio, Telnyx) share beyond the leg: they reach real phones (no
// simulation settings, no scripted recognition), report how their API answered, leave live calls
// to finish on their own when the connection changes, and give up on a call whose stream never opens.
import type { CarrierStatus } from "../types.ts";
import type { StreamCall } from "./live-calls.ts";

export abstract class CloudCarrier {
  protected state: CarrierStatus = { state: "ready", detail: null };

  /** `name` is the carrier as users know it (messages); `streamUrl` is where it must open media streams. */
  protected constructor(private readonly name: string) {}

  protected abstract streamUrl(): string;
  /** Ends the call at the carrier (best effort). */
  protected abstract hangupAtCarrier(call: StreamCall): Promise<void>;

  checkDialOptions(options: Record<string, unknown>): { field: string; message: string } | null {
    const [key] = Object.keys(options);
    return key ? { field: `simulation.${key}`, message: `a call through ${this.name} reaches a real phone: it takes no simulation settings` } : null;
  }

  scriptedRecognition(): boolean {
    return false;
  }

  status(): CarrierStatus {
    return this.state;
  }

  /** Live calls are the carrier's: they finish on their own legs when the connection changes. */
  close(): void {}

  /** A call whose stream never opens (the carrier cannot reach the stream URL) must not stay live forever. */
  protected giveUpWithoutStream(call: StreamCall, afterMs: number): void {
    const timer = setTimeout(() => {
      if (call.leg.isAnswered || call.leg.isEnded) return;
      call.leg.end("failed", `${this.name} did not open the media stream within ${Math.round(afterMs / 1000)} s: check that it can reach ${this.streamUrl()}`);
      void this.hangupAtCarrier(call);
    }, afterMs);
    timer.unref?.();
    call.leg.onEvent((event) => {
      if (event.type === "ended") clearTimeout(timer);
    });
  }

  /** Remembers an API refusal that says the connection itself is wrong (credentials) or cut off. */
  protected noteRefusal(error: unknown): void {
    const status = (error as { status?: number } | null)?.status;
    if (status === 401) this.state = { state: "failed", detail: `${this.name} refused the credentials (401)` };
    else if (status === 0) this.state = { state: "unreachable", detail: (error as Error).message };
  }
}
