export { ELEVENLABS_PCM_RATES, ElevenLabsSpeech, type ElevenLabsSpeechOptions } from "./speech.ts";
