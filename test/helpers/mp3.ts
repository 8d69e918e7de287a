import { MPEGDecoder } from "mpg123-decoder";

/** Decodes a whole MP3 with mpg123 (an independent decoder, so tests check what players will hear). */
export async function decodeMp3(bytes: Uint8Array) {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    return decoder.decode(bytes);
  } finally {
    decoder.free();
  }
}
