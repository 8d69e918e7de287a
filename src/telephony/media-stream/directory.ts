// Streams the carrier will open: the leg waits here, under its Parley call id and a one-time token
// handed to the carrier in the TwiML or API command, until the carrier's socket names both.
import { safeEqual } from "../../lib/crypto.ts";
import { randomBase62 } from "../../lib/random.ts";
import type { StreamLeg } from "./leg.ts";

interface Expected {
  token: string;
  leg: StreamLeg;
  /** The connection that placed or took the call (its secret checks the socket's signature). */
  connectionId: string;
}

export class StreamDirectory {
  private readonly expected = new Map<string, Expected>();

  /** Registers a leg; returns the token the carrier must present. */
  expect(callId: string, connectionId: string, leg: StreamLeg): string {
    const token = randomBase62(32);
    this.expected.set(callId, { token, leg, connectionId });
    return token;
  }

  /** The leg waiting for this call if the token is its own; it is taken, so a token opens one stream only. */
  claim(callId: string, token: string): Expected | null {
    const entry = this.expected.get(callId);
    if (!entry || !safeEqual(entry.token, token)) return null;
    this.expected.delete(callId);
    return entry;
  }

  forget(callId: string): void {
    this.expected.delete(callId);
  }
}

