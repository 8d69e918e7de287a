import { describe, expect, test } from "bun:test";
import type { TurnRecord } from "../../../src/voice/runtime/journal.ts";
import { TranscriptOrder } from "../../../src/voice/runtime/transcript-order.ts";

const turn = (role: TurnRecord["role"], text: string, start_ms: number): TurnRecord => ({ role, text, start_ms, end_ms: start_ms + 100, interrupted: false });

describe("transcript order", () => {
  test("keys pressed during an utterance still being recognised are written after it", () => {
    const written: string[] = [];
    const order = new TranscriptOrder((t) => written.push(`${t.start_ms} ${t.text}`));
    const speech = order.open(11_320);
    order.add(turn("caller", "[keyed 2]", 11_340));
    expect(written).toEqual([]);
    order.settle(speech, turn("caller", "What are your opening hours?", 11_320));
    expect(written).toEqual(["11320 What are your opening hours?", "11340 [keyed 2]"]);
  });

  test("a turn that started before every pending utterance is written at once", () => {
    const written: number[] = [];
    const order = new TranscriptOrder((t) => written.push(t.start_ms));
    const later = order.open(5_000);
    order.add(turn("agent", "Hello", 1_000));
    expect(written).toEqual([1_000]);
    order.add(turn("agent", "Still there?", 6_000));
    expect(written).toEqual([1_000]);
    order.settle(later, null); // heard nothing: no turn, and the wait ends
    expect(written).toEqual([1_000, 6_000]);
  });

  test("utterances recognised out of order come out in start order; close writes what is known", () => {
    const written: number[] = [];
    const order = new TranscriptOrder((t) => written.push(t.start_ms));
    const first = order.open(100);
    const second = order.open(200);
    const third = order.open(300);
    order.settle(second, turn("caller", "b", 200));
    order.settle(third, turn("caller", "c", 300));
    expect(written).toEqual([]);
    order.settle(first, turn("caller", "a", 100));
    expect(written).toEqual([100, 200, 300]);
    const lost = order.open(400);
    order.add(turn("agent", "bye", 500));
    order.close();
    order.settle(lost, turn("caller", "too late", 400));
    expect(written).toEqual([100, 200, 300, 500]);
  });
});
