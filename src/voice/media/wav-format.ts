// The RIFF/WAVE container for 16-bit PCM: the canonical 44-byte header we write, and a chunk walk
// that reads what others write (extra LIST/fact chunks, WAVE_FORMAT_EXTENSIBLE, and a data size of
// 0 or 0xFFFFFFFF left by a writer that never finished).
//
// Samples are stored little-endian, as every platform Bun runs on is, so Int16Array views are used
// without byte swapping.

export const WAV_HEADER_BYTES = 44;

export interface WavFormat {
  sampleRate: number;
  channels: number;
}

export interface WavInfo extends WavFormat {
  bitsPerSample: 16;
  /** Byte offset of the first sample and the size of the sample data. */
  dataOffset: number;
  dataBytes: number;
  /** Samples per channel. */
  frames: number;
  durationMs: number;
}

const FORMAT_PCM = 1;
const FORMAT_EXTENSIBLE = 0xfffe;

/** The 44-byte header for `dataBytes` of 16-bit PCM. */
export function wavHeader(format: WavFormat, dataBytes: number): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const blockAlign = format.channels * 2;
  writeTag(header, 0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  writeTag(header, 8, "WAVE");
  writeTag(header, 12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, format.channels, true);
  view.setUint32(24, format.sampleRate, true);
  view.setUint32(28, format.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, 16, true);
  writeTag(header, 36, "data");
  view.setUint32(40, dataBytes, true);
  return header;
}

/** A whole WAV file in memory; `samples` interleaved when there are several channels. */
export function encodeWav(samples: Int16Array, format: WavFormat): Uint8Array {
  const out = new Uint8Array(WAV_HEADER_BYTES + samples.byteLength);
  out.set(wavHeader(format, samples.byteLength));
  out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), WAV_HEADER_BYTES);
  return out;
}

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export type ByteSource = (offset: number, length: number) => Uint8Array;

/** Walks the chunks of a WAV of `totalBytes` and describes its 16-bit PCM data. */
export function parseWavHeader(read: ByteSource, totalBytes: number): WavInfo {
  const riff = read(0, 12);
  if (riff.length < 12 || tag(riff, 0) !== "RIFF" || tag(riff, 8) !== "WAVE") throw new Error("not a RIFF/WAVE file");
  let format: { sampleRate: number; channels: number } | null = null;
  let offset = 12;
  while (offset + 8 <= totalBytes) {
    const chunk = read(offset, 8);
    const id = tag(chunk, 0);
    const size = new DataView(chunk.buffer, chunk.byteOffset, 8).getUint32(4, true);
    if (id === "fmt ") {
      const fmt = read(offset + 8, Math.min(size, 40));
      const view = new DataView(fmt.buffer, fmt.byteOffset, fmt.length);
      let code = view.getUint16(0, true);
      if (code === FORMAT_EXTENSIBLE && fmt.length >= 26) code = view.getUint16(24, true); // sub-format GUID's first bytes
      const bits = view.getUint16(14, true);
      if (code !== FORMAT_PCM || bits !== 16) throw new Error(`unsupported WAV encoding (format ${code}, ${bits} bits); only 16-bit PCM`);
      format = { channels: view.getUint16(2, true), sampleRate: view.getUint32(4, true) };
    } else if (id === "data") {
      if (!format) throw new Error("WAV data chunk before its fmt chunk");
      const dataOffset = offset + 8;
      const available = totalBytes - dataOffset;
      // 0 and 0xFFFFFFFF are what streaming writers leave before they know the size.
      let dataBytes = size === 0 || size === 0xffffffff || size > available ? available : size;
      const blockAlign = format.channels * 2;
      dataBytes -= dataBytes % blockAlign;
      const frames = dataBytes / blockAlign;
      return { ...format, bitsPerSample: 16, dataOffset, dataBytes, frames, durationMs: (frames * 1000) / format.sampleRate };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error("WAV file has no data chunk");
}

/** Parses a WAV held in memory; the samples are copied (interleaved when several channels). */
export function decodeWav(bytes: Uint8Array): { info: WavInfo; samples: Int16Array } {
  const info = parseWavHeader((offset, length) => bytes.subarray(offset, offset + length), bytes.length);
  const samples = new Int16Array(info.dataBytes / 2);
  new Uint8Array(samples.buffer).set(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
  return { info, samples };
}

function writeTag(bytes: Uint8Array, offset: number, value: string): void {
  for (let i = 0; i < 4; i++) bytes[offset + i] = value.charCodeAt(i);
}

function tag(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]);
}
