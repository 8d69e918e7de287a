export { DeepgramTranscriber, listenUrl, type DeepgramTranscriberOptions } from "./transcriber.ts";
