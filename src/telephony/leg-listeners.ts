import type { LegEvent } from "./types.ts";

/**
 * The listeners every CallLeg keeps (the call session's audio, key and event handlers), once. A
 * finished leg lets go of them: through them it would keep the whole ended call session alive.
 */
export abstract class LegListeners {
  private audioHandlers: ((frame: Uint8Array) => void)[] = [];
  private dtmfHandlers: ((digit: string) => void)[] = [];
  private eventHandlers: ((event: LegEvent) => void)[] = [];

  onAudio(handler: (frame: Uint8Array) => void): void {
    this.audioHandlers.push(handler);
  }
  onDtmf(handler: (digit: string) => void): void {
    this.dtmfHandlers.push(handler);
  }
  onEvent(handler: (event: LegEvent) => void): void {
    this.eventHandlers.push(handler);
  }

  protected deliverAudio(frame: Uint8Array): void {
    for (const handler of this.audioHandlers) handler(frame);
  }
  protected deliverDigit(digit: string): void {
    for (const handler of this.dtmfHandlers) handler(digit);
  }
  protected deliverEvent(event: LegEvent): void {
    for (const handler of this.eventHandlers) handler(event);
  }

  /** No more audio or keys reach the call (media stopped). */
  protected releaseMedia(): void {
    this.audioHandlers = [];
    this.dtmfHandlers = [];
  }
  /** No more events either: the leg has said its last. */
  protected releaseAll(): void {
    this.releaseMedia();
    this.eventHandlers = [];
  }
}
