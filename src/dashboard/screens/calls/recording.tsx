// A call's recording: fetched through the client library (the URL needs the session's credentials) into a
// Blob URL for an <audio> element, with the waveform of its samples (caller above, agent below).
import { useEffect, useState } from "preact/hooks";
import type { Ref } from "preact";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Loading, ProblemNotice } from "../../ui/status.tsx";
import { Waveform, wavPeaks, type Peaks } from "../../ui/waveform.tsx";

async function loadRecording(id: string): Promise<{ url: string; peaks: Peaks | null }> {
  const bytes = await session.client.calls.recording(id);
  return { url: URL.createObjectURL(new Blob([bytes as BlobPart], { type: "audio/wav" })), peaks: wavPeaks(bytes) };
}

/** `audio` is the parent's, so the transcript can seek it; `onTime` hears the position (ms) as it plays. */
export function Recording({ callId, audio, onTime }: { callId: string; audio: Ref<HTMLAudioElement>; onTime: (ms: number) => void }) {
  const [recording, reload] = useLoad(() => loadRecording(callId), [callId]);
  const [progress, setProgress] = useState(0);
  const url = recording.status === "ready" ? recording.data.url : null;
  useEffect(() => (url ? () => URL.revokeObjectURL(url) : undefined), [url]);
  useEffect(() => {
    const element = (audio as { current: HTMLAudioElement | null }).current;
    if (!element || !url) return;
    // Frame by frame while playing (timeupdate alone comes four times a second: the highlight would lag).
    let frame = 0;
    const report = () => {
      onTime(element.currentTime * 1000);
      setProgress(element.duration ? element.currentTime / element.duration : 0);
    };
    const tick = () => {
      report();
      frame = requestAnimationFrame(tick);
    };
    const play = () => ((frame = requestAnimationFrame(tick)), undefined);
    const stop = () => (cancelAnimationFrame(frame), report());
    const events: [string, () => void][] = [["play", play], ["pause", stop], ["ended", stop], ["seeked", report], ["loadedmetadata", report]];
    for (const [name, handler] of events) element.addEventListener(name, handler);
    return () => {
      cancelAnimationFrame(frame);
      for (const [name, handler] of events) element.removeEventListener(name, handler);
    };
  }, [url]);
  if (recording.status === "loading") return <Loading label="Loading the recording…" />;
  if (recording.status === "failed") return <ProblemNotice problem={recording.problem} onRetry={reload} />;
  const { peaks } = recording.data;
  const seek = (fraction: number) => {
    const element = (audio as { current: HTMLAudioElement | null }).current;
    if (element?.duration) element.currentTime = fraction * element.duration;
  };
  return (
    <div class="calls-player">
      {peaks && (
        <div class="calls-wave">
          <Waveform peaks={peaks} progress={progress} onSeek={seek} />
          <span class="calls-lane caller" aria-hidden="true">Caller</span>
          <span class="calls-lane agent" aria-hidden="true">Agent</span>
        </div>
      )}
      <audio ref={audio} controls preload="auto" src={recording.data.url} aria-label="Call recording" />
    </div>
  );
}
