// How the far end's RTP stream is arriving, kept as RFC 3550 appendix A.3 and A.8 keep it: extended
// highest sequence, packets expected and lost, interarrival jitter. What our sender reports say back.
import type { ReportBlock } from "./rtcp.ts";

const CLOCK_RATE = 8000;

export class ReceptionStats {
  private ssrc: number | null = null;
  private base = 0;
  private max = 0;
  private cycles = 0;
  private received = 0;
  private expectedPrior = 0;
  private receivedPrior = 0;
  private lastTransit: number | null = null;
  /** Interarrival jitter in timestamp units (the §6.4.1 estimator, kept as a float). */
  private jitter = 0;
  /** The far end's last SR (NTP middle 32 bits) and when it came, for LSR/DLSR. */
  private lastSr: { ntp: number; at: number } | null = null;

  /**
   * A packet of the far end's stream came, `arrivalMs` on the monotonic clock. `rtpTimestamp` is null for
   * an RFC 4733 event: every packet of a key carries the key's start, which says nothing about jitter.
   */
  update(ssrc: number, sequence: number, rtpTimestamp: number | null, arrivalMs: number): void {
    if (this.ssrc !== ssrc) {
      // A new source (the far end restarted its stream): its statistics start over.
      this.ssrc = ssrc;
      this.base = this.max = sequence;
      this.cycles = this.received = this.expectedPrior = this.receivedPrior = 0;
      this.lastTransit = null;
      this.jitter = 0;
    } else {
      const delta = (sequence - this.max) & 0xffff;
      if (delta !== 0 && delta < 0x8000) {
        if (sequence < this.max) this.cycles += 0x10000;
        this.max = sequence;
      }
    }
    this.received++;
    if (rtpTimestamp === null) return;
    const transit = (arrivalMs * CLOCK_RATE) / 1000 - rtpTimestamp;
    if (this.lastTransit !== null) {
      let d = Math.abs(transit - this.lastTransit);
      // A timestamp that wrapped between two packets is not 2^32 units of jitter.
      if (d > 0x80000000) d = Math.abs(d - 0x100000000);
      this.jitter += (d - this.jitter) / 16;
    }
    this.lastTransit = transit;
  }

  senderReport(ntpMiddle: number, arrivalMs: number): void {
    this.lastSr = { ntp: ntpMiddle, at: arrivalMs };
  }

  /** The report block for our next SR, or null before the far end has sent anything. */
  block(nowMs: number): ReportBlock | null {
    if (this.ssrc === null) return null;
    const extended = this.cycles + this.max;
    const expected = extended - this.base + 1;
    const expectedInterval = expected - this.expectedPrior;
    const lostInterval = expectedInterval - (this.received - this.receivedPrior);
    this.expectedPrior = expected;
    this.receivedPrior = this.received;
    return {
      ssrc: this.ssrc,
      fractionLost: expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.min(255, Math.floor((lostInterval * 256) / expectedInterval)),
      cumulativeLost: expected - this.received,
      extendedHighestSequence: extended >>> 0,
      jitter: Math.round(this.jitter),
      lastSr: this.lastSr?.ntp ?? 0,
      delaySinceLastSr: this.lastSr ? Math.round(((nowMs - this.lastSr.at) / 1000) * 65536) : 0,
    };
  }
}
