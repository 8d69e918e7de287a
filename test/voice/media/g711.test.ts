import { describe, expect, test } from "bun:test";
import {
  ALAW_DECODE_TABLE,
  MULAW_DECODE_TABLE,
  alawToLinear,
  decodeAlaw,
  decodeG711,
  decodeMulaw,
  encodeAlaw,
  encodeG711,
  encodeMulaw,
  g711SilenceCode,
  linearToAlaw,
  linearToMulaw,
  mulawToLinear,
} from "../../../src/voice/media/g711.ts";

// The classic Sun Microsystems g711.c, an independent implementation. Its A-law equals G.191's for
// every sample; its µ-law equals G.191's for samples ≥ 0 (for negatives G.191 takes the one's
// complement, Sun the negation).
function sunLinearToMulaw(sample: number): number {
  let value = sample >> 2;
  let mask = 0xff;
  if (value < 0) {
    value = -value;
    mask = 0x7f;
  }
  value = Math.min(value, 8159) + 33;
  const ends = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];
  const segment = ends.findIndex((end) => value <= end);
  if (segment < 0) return 0x7f ^ mask;
  return ((segment << 4) | ((value >> (segment + 1)) & 0xf)) ^ mask;
}

function sunLinearToAlaw(sample: number): number {
  let value = sample >> 3;
  let mask = 0xd5;
  if (value < 0) {
    mask = 0x55;
    value = -value - 1;
  }
  const ends = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];
  const segment = ends.findIndex((end) => value <= end);
  if (segment < 0) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (value >> 1) & 0xf : (value >> segment) & 0xf;
  return ((segment << 4) | mantissa) ^ mask;
}

describe("µ-law", () => {
  test("agrees with an independent implementation (G.191's one's complement for negatives)", () => {
    for (let s = 0; s <= 32767; s++) if (linearToMulaw(s) !== sunLinearToMulaw(s)) throw new Error(`sample ${s}`);
    for (let s = -32768; s < 0; s++) if (linearToMulaw(s) !== (linearToMulaw(~s) & 0x7f)) throw new Error(`sample ${s}`);
  });

  test("known codes decode to the G.711 values", () => {
    // Code → value, from G.711 Table 2a (decision/quantised values on the 16-bit scale).
    const known: [number, number][] = [
      [0xff, 0], [0x7f, 0], [0xfe, 8], [0x7e, -8], [0xf0, 120], [0xef, 132], [0xe0, 372], [0xdf, 396],
      [0x80, 32124], [0x00, -32124], [0x8f, 16764], [0x90, 15996], [0x81, 31100], [0xb0, 3900], [0xc0, 1884],
    ];
    for (const [code, value] of known) expect([code, mulawToLinear(code)]).toEqual([code, value]);
    expect(Object.is(mulawToLinear(0x7f), -0)).toBe(false);
  });

  test("known samples encode to the G.191 codes", () => {
    const known: [number, number][] = [
      [0, 0xff], [-1, 0x7f], [1, 0xff], [-4, 0x7f], [-5, 0x7e], [32767, 0x80], [-32768, 0x00], [8, 0xfe], [-9, 0x7e],
      [120, 0xf0], [132, 0xef], [32124, 0x80], [-32124, 0x00], [3900, 0xb0], [-3901, 0x30],
    ];
    for (const [sample, code] of known) expect([sample, linearToMulaw(sample)]).toEqual([sample, code]);
  });

  test("every code survives decode → encode (negative zero becomes positive zero)", () => {
    for (let code = 0; code < 256; code++) expect(linearToMulaw(mulawToLinear(code))).toBe(code === 0x7f ? 0xff : code);
  });

  test("the encoder is monotonic and quantises within half a step", () => {
    let previous = -Infinity;
    for (let s = -32768; s <= 32767; s++) {
      const decoded = MULAW_DECODE_TABLE[linearToMulaw(s)];
      expect(decoded >= previous).toBe(true);
      previous = decoded;
      const magnitude = Math.min(Math.abs(s), 32124);
      // Step size of the segment (8 … 1024 on the 16-bit scale); G.191 truncates toward a level.
      const step = magnitude < 124 ? 8 : 8 << Math.floor(Math.log2((magnitude + 132) / 256) + 1);
      if (Math.abs(decoded - Math.max(-32124, Math.min(32124, s))) > step) throw new Error(`sample ${s} decoded to ${decoded} (step ${step})`);
    }
  });

  test("frames go through the tables exactly as through the bit algorithm", () => {
    const samples = new Int16Array(65536);
    for (let i = 0; i < samples.length; i++) samples[i] = i - 32768;
    const codes = encodeMulaw(samples);
    for (let i = 0; i < samples.length; i++) if (codes[i] !== linearToMulaw(samples[i])) throw new Error(`sample ${samples[i]}`);
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(Array.from(decodeMulaw(all))).toEqual(Array.from(all, (c) => mulawToLinear(c) + 0));
  });
});

describe("A-law", () => {
  test("agrees with an independent implementation for every sample", () => {
    for (let s = -32768; s <= 32767; s++) if (linearToAlaw(s) !== sunLinearToAlaw(s)) throw new Error(`sample ${s}`);
  });

  test("known codes decode to the G.711 values", () => {
    const known: [number, number][] = [
      [0xd5, 8], [0x55, -8], [0xd4, 24], [0xaa, 32256], [0x2a, -32256], [0xc5, 264], [0xf5, 528], [0xe5, 1056], [0x95, 2112], [0xa5, 16896],
    ];
    for (const [code, value] of known) expect([code, alawToLinear(code)]).toEqual([code, value]);
  });

  test("known samples encode to the G.191 codes", () => {
    const known: [number, number][] = [
      [0, 0xd5], [-1, 0x55], [15, 0xd5], [16, 0xd4], [32767, 0xaa], [-32768, 0x2a], [256, 0xc5], [512, 0xf5], [-513, 0x75], [-512, 0x4a],
    ];
    for (const [sample, code] of known) expect([sample, linearToAlaw(sample)]).toEqual([sample, code]);
  });

  test("every code survives decode → encode", () => {
    for (let code = 0; code < 256; code++) expect(linearToAlaw(alawToLinear(code))).toBe(code);
  });

  test("round trips stay within half a quantisation step", () => {
    let previous = -Infinity;
    for (let s = -32768; s <= 32767; s++) {
      const decoded = ALAW_DECODE_TABLE[linearToAlaw(s)];
      expect(decoded >= previous).toBe(true);
      previous = decoded;
      const magnitude = Math.min(Math.abs(s), 32256);
      const step = magnitude < 512 ? 16 : 16 << Math.floor(Math.log2(magnitude / 256));
      if (Math.abs(decoded - Math.max(-32256, Math.min(32256, s))) > step / 2) throw new Error(`sample ${s} decoded to ${decoded} (step ${step})`);
    }
  });

  test("frames match the bit algorithm and reuse the output buffer", () => {
    const samples = new Int16Array(65536);
    for (let i = 0; i < samples.length; i++) samples[i] = i - 32768;
    const codes = encodeAlaw(samples);
    for (let i = 0; i < samples.length; i++) if (codes[i] !== linearToAlaw(samples[i])) throw new Error(`sample ${samples[i]}`);
    const output = new Int16Array(160);
    expect(decodeAlaw(codes.subarray(0, 160), output)).toBe(output);
  });
});

describe("by law name", () => {
  test("silence codes decode to zero and sizes are checked", () => {
    for (const law of ["mulaw", "alaw"] as const) {
      const frame = new Uint8Array(160).fill(g711SilenceCode(law));
      expect(Math.max(...decodeG711(law, frame).map(Math.abs))).toBeLessThanOrEqual(8);
      expect(encodeG711(law, new Int16Array(160))).toEqual(law === "mulaw" ? new Uint8Array(160).fill(0xff) : new Uint8Array(160).fill(0xd5));
      expect(() => decodeG711(law, frame, new Int16Array(10))).toThrow(RangeError);
    }
  });

  test("a speech-level sine keeps ~38 dB SNR through both laws", () => {
    const signal = new Int16Array(8000);
    for (let i = 0; i < signal.length; i++) signal[i] = Math.round(8000 * Math.sin((2 * Math.PI * 1004 * i) / 8000));
    for (const law of ["mulaw", "alaw"] as const) {
      const back = decodeG711(law, encodeG711(law, signal));
      let s = 0;
      let e = 0;
      for (let i = 0; i < signal.length; i++) {
        s += signal[i] ** 2;
        e += (signal[i] - back[i]) ** 2;
      }
      expect(10 * Math.log10(s / e)).toBeGreaterThan(33);
    }
  });
});
