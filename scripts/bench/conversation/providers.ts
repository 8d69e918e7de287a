// The agents' providers for the conversation benchmark: the local fakes of Deepgram (live STT) or an
// OpenAI-compatible transcription server (batch STT), an OpenAI-protocol model and ElevenLabs
// (streamed TTS), run with realistic, documented timing.
// Each call slot has its own agent whose transcriber and model are named `slot-N`, so the fakes know
// whose caller they hear and whose reply they write.
import { startFakeOpenAI, type FakeOpenAI } from "../../../test/helpers/fake-openai.ts";
import { startFakeDeepgram, startFakeElevenLabs, startFakeOpenAiAudio, type FakeDeepgram, type FakeElevenLabs, type FakeOpenAiAudio } from "../../../test/helpers/fake-speech/index.ts";

/** The providers' timing, as hosted providers behave on a good day. */
export const TIMING = {
  /** Deepgram live: an interim result every 100 ms of audio, with the words said so far; the final 150 ms after Finalize (Parley sends it when its endpointing ends the utterance). */
  sttInterimEveryMs: 100,
  sttFinalMs: 150,
  /** Batch transcription (`--stt openai`): the text 300 ms after each upload, as a Whisper-class server near Parley answers a few seconds of speech. */
  batchSttMs: 300,
  /** The model: 350 ms to the first token, then 40 tokens a second (a token is a word here). */
  llmFirstTokenMs: 350,
  llmTokensPerSecond: 40,
  /** ElevenLabs: 150 ms to the first audio, then faster than real time; 65 ms of speech per character (~15 characters a second). */
  ttsFirstAudioMs: 150,
  ttsMsPerChar: 65,
};

/** The agent's reply when nothing will be said over it: its first sentence is eight words (200 ms of tokens). */
export const SHORT_REPLY = "Sure, I can help you with that today. Let me note it down.";
/** The reply a backchannel or an interruption is said over: about ten seconds of speech. */
export const LONG_REPLY =
  "Sure, I can help you with that today. We have several options, and the first one is the most popular with our customers. The second one costs a little more, but it includes delivery and setup.";

/** How long the fake speaks `text`: sentence by sentence, as the agent sends them to it. */
export function spokenMs(text: string): number {
  return text.split(/(?<=[.!?])\s+/).reduce((ms, sentence) => ms + sentence.trim().length * TIMING.ttsMsPerChar, 0);
}

/** What a slot's caller tells the fakes. */
export interface SlotVoice {
  /**
   * What the caller is saying from now to the end of the turn, for the recogniser: a segment per
   * part of the turn, each as long as its audio and the pause after it (a recognition that Parley
   * ends in a pause has heard only the first), with its speech length apart, so the interims have
   * every word of a part once it is said, as Deepgram's do.
   */
  saying: { segments: string[]; segmentMs: number[]; speechMs: number[] } | null;
  /** The words the caller said between two moments (performance.now()), for a batch upload of that audio. */
  heard(fromMs: number, toMs: number): string;
  /** The reply the agent should give now. */
  reply(): string;
}

export interface Providers {
  deepgram: FakeDeepgram;
  transcription: FakeOpenAiAudio;
  model: FakeOpenAI;
  elevenlabs: FakeElevenLabs;
  stop(): void;
}

export function startProviders(slot: (name: string | undefined) => SlotVoice | undefined): Providers {
  const deepgram = startFakeDeepgram();
  deepgram.configure({ interimEveryMs: TIMING.sttInterimEveryMs, finalizeDelayMs: TIMING.sttFinalMs, idleTimeoutMs: 60_000 });
  deepgram.hear((connection) => slot(connection.query.model)?.saying ?? []);
  const transcription = startFakeOpenAiAudio();
  // Asked after the answer's delay: the upload's audio ended that long ago.
  const uploadedUntil = () => performance.now() - TIMING.batchSttMs;
  transcription.configure({ ttfbMs: TIMING.batchSttMs, transcript: (upload) => slot(upload.fields.model)?.heard(uploadedUntil() - upload.durationMs, uploadedUntil()) ?? "" });
  const model = startFakeOpenAI();
  model.script((body) => {
    // The summary after the call asks for JSON.
    if (body.response_format) return { text: ["{}"] };
    const text = slot(body.model)?.reply() ?? SHORT_REPLY;
    return { text: text.match(/\S+\s*/g) ?? [], delayMs: TIMING.llmFirstTokenMs, pieceDelayMs: 1000 / TIMING.llmTokensPerSecond };
  });
  const elevenlabs = startFakeElevenLabs();
  elevenlabs.configure({ ttfbMs: TIMING.ttsFirstAudioMs, msPerChar: TIMING.ttsMsPerChar });
  return {
    deepgram,
    transcription,
    model,
    elevenlabs,
    stop() {
      deepgram.stop();
      transcription.stop();
      model.stop();
      elevenlabs.stop();
    },
  };
}
