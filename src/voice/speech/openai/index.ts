export { OpenAiSpeech, OPENAI_VOICES, type OpenAiSpeechOptions } from "./speech.ts";
export { OpenAiTranscriber, type OpenAiTranscriberOptions } from "./transcriber.ts";
