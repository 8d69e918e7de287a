// Local servers speaking the speech providers' protocols, for client and voice-runtime tests.
export * from "./audio.ts";
export { startFakeDeepgram, type DeepgramConfig, type DeepgramConnection, type DeepgramHandshake, type FakeDeepgram, type TimedScript } from "./deepgram.ts";
export { DEFAULT_FAKE_VOICES, startFakeElevenLabs, type ElevenLabsConfig, type ElevenLabsRequest, type FakeElevenLabs, type FakeVoice } from "./elevenlabs.ts";
export { OPENAI_PCM_RATE, startFakeOpenAiAudio, type FakeOpenAiAudio, type OpenAiAudioConfig, type OpenAiAudioRequest, type TranscriptionUpload } from "./openai-audio.ts";
