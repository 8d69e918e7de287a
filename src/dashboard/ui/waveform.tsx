// A recording's waveform drawn on a <canvas> from its PCM samples (no library): one lane per channel,
// the part already played in the accent colour; a click seeks. Keyboards seek with the <audio> controls
// beside it, so the canvas itself is decoration to assistive technology.
import { useEffect, useRef } from "preact/hooks";

export interface Peaks {
  durationMs: number;
  /** Per channel, the loudest sample of each bucket, 0–1. */
  channels: Float32Array[];
}

/** The peaks of a 16-bit PCM WAV file in `buckets` slices of time; null for anything else. */
export function wavPeaks(bytes: Uint8Array, buckets = 600): Peaks | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
  let format: { channels: number; rate: number; bits: number } | null = null;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === "fmt ") format = { channels: view.getUint16(at + 10, true), rate: view.getUint32(at + 12, true), bits: view.getUint16(at + 22, true) };
    else if (tag(at) === "data" && format?.bits === 16) {
      const count = format.channels;
      // A recording still being written may announce more than it holds.
      const frames = Math.floor(Math.min(size, bytes.length - at - 8) / (2 * count));
      const channels = Array.from({ length: count }, () => new Float32Array(buckets));
      const start = at + 8;
      for (let frame = 0; frame < frames; frame++) {
        const bucket = Math.floor((frame * buckets) / frames);
        for (let c = 0; c < count; c++) {
          const level = Math.abs(view.getInt16(start + (frame * count + c) * 2, true)) / 32768;
          if (level > channels[c][bucket]) channels[c][bucket] = level;
        }
      }
      return { durationMs: (frames / format.rate) * 1000, channels };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

export function Waveform({ peaks, progress, onSeek, class: className }: { peaks: Peaks; progress: number; onSeek: (fraction: number) => void; class?: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current!;
    const draw = () => drawPeaks(canvas, peaks, progress);
    draw();
    const observer = new ResizeObserver(draw);
    observer.observe(canvas);
    return () => observer.disconnect();
  }, [peaks, progress]);
  return <canvas ref={ref} class={className ?? "waveform"} aria-hidden="true" onClick={(e) => onSeek(e.offsetX / e.currentTarget.clientWidth)} />;
}

function drawPeaks(canvas: HTMLCanvasElement, peaks: Peaks, progress: number): void {
  const ratio = devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) Object.assign(canvas, { width, height });
  const g = canvas.getContext("2d");
  if (!g) return;
  const style = getComputedStyle(canvas);
  const played = style.getPropertyValue("--primary").trim() || "#1a56db";
  const rest = style.getPropertyValue("--muted").trim() || "#586070";
  g.clearRect(0, 0, width, height);
  const lanes = peaks.channels.length;
  const lane = height / lanes;
  const buckets = peaks.channels[0]?.length ?? 0;
  const step = width / buckets;
  peaks.channels.forEach((levels, c) => {
    const middle = lane * c + lane / 2;
    for (let b = 0; b < buckets; b++) {
      const half = Math.max(0.5 * ratio, levels[b] * (lane / 2 - ratio));
      g.fillStyle = b / buckets < progress ? played : rest;
      g.fillRect(b * step, middle - half, Math.max(1, step - 0.5), half * 2);
    }
  });
}
