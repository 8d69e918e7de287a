// AudioWorklet processors for the browser voice session: `parley-capture` turns the microphone into
// 20 ms PCM16 LE chunks, `parley-playback` plays the agent's PCM16 LE frames from a queue.
// Both take `processorOptions.rate`, the session's wire rate; when the AudioContext could not run at
// that rate (a browser that only runs at the device rate), they resample linearly to and from it.

const FRAME_SECONDS = 0.02;
// Wait for this much audio before (re)starting playback, or this long for the first frame's company,
// so network jitter does not turn into a click every frame.
const PREBUFFER_SECONDS = 0.06;
// A bound on queued audio, in case the server ever sends faster than real time.
const MAX_QUEUED_SECONDS = 30;
// How often playback reports progress to the page.
const REPORT_SECONDS = 0.2;

/** Linear resampler with state across blocks; a pass-through when the rates match. */
class Resampler {
  constructor(from, to) {
    this.step = from / to;
    this.position = 0; // Of the next output sample, in input samples from the block start (position >= -1).
    this.last = 0;
  }

  run(input) {
    if (this.step === 1) return input;
    const length = input.length;
    const output = new Float32Array(Math.ceil((length - this.position) / this.step) + 1);
    let count = 0;
    let t = this.position;
    for (; t <= length - 1; t += this.step) {
      const i = Math.floor(t);
      const a = i < 0 ? this.last : input[i];
      const b = i + 1 < length ? input[i + 1] : a;
      output[count++] = a + (b - a) * (t - i);
    }
    this.position = t - length;
    if (length) this.last = input[length - 1];
    return output.subarray(0, count);
  }
}

class ParleyCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const rate = (options.processorOptions && options.processorOptions.rate) || sampleRate;
    this.resampler = new Resampler(sampleRate, rate);
    this.size = Math.round(rate * FRAME_SECONDS);
    this.chunk = new DataView(new ArrayBuffer(this.size * 2));
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    const samples = this.resampler.run(channel);
    for (let i = 0; i < samples.length; i++) {
      const s = Math.max(-1, Math.min(1, samples[i]));
      this.chunk.setInt16(this.filled * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true);
      if (++this.filled === this.size) {
        const buffer = this.chunk.buffer;
        this.port.postMessage(buffer, [buffer]);
        this.chunk = new DataView(new ArrayBuffer(this.size * 2));
        this.filled = 0;
      }
    }
    return true;
  }
}

class ParleyPlayback extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.rate = (options.processorOptions && options.processorOptions.rate) || sampleRate;
    this.resampler = new Resampler(this.rate, sampleRate);
    this.queue = []; // Float32Array per received frame, at the context rate.
    this.queued = 0; // Samples in the queue.
    this.offset = 0; // Into queue[0].
    this.playing = false;
    this.waitingSince = -1;
    this.played = 0; // Frames finished since the last report.
    this.reportedAt = 0;
    this.port.onmessage = (event) => this.receive(event.data);
  }

  receive(data) {
    if (data instanceof ArrayBuffer) {
      const view = new DataView(data);
      const input = new Float32Array(data.byteLength >> 1);
      for (let i = 0; i < input.length; i++) input[i] = view.getInt16(i * 2, true) / 0x8000;
      const frame = this.resampler.run(input);
      if (!frame.length) return;
      this.queue.push(frame);
      this.queued += frame.length;
      while (this.queued - this.offset > MAX_QUEUED_SECONDS * sampleRate && this.queue.length > 1) {
        this.queued -= this.queue.shift().length;
        this.offset = 0;
      }
      if (this.waitingSince < 0) this.waitingSince = currentTime;
    } else if (data && data.type === "clear") {
      // Barge-in: the caller spoke, so everything the agent had still to say goes now.
      this.queue = [];
      this.queued = 0;
      this.offset = 0;
      this.playing = false;
      this.waitingSince = -1;
      this.resampler = new Resampler(this.rate, sampleRate);
    }
  }

  process(_inputs, outputs) {
    const output = outputs[0];
    const out = output[0];
    if (!this.playing && this.queue.length) {
      const buffered = this.queued - this.offset;
      if (buffered >= PREBUFFER_SECONDS * sampleRate || currentTime - this.waitingSince >= PREBUFFER_SECONDS) this.playing = true;
    }
    let written = 0;
    while (this.playing && written < out.length && this.queue.length) {
      const frame = this.queue[0];
      const n = Math.min(out.length - written, frame.length - this.offset);
      out.set(frame.subarray(this.offset, this.offset + n), written);
      written += n;
      this.offset += n;
      if (this.offset === frame.length) {
        this.queue.shift();
        this.queued -= frame.length;
        this.offset = 0;
        this.played++;
      }
    }
    if (!this.queue.length && this.playing) {
      // Ran dry: buffer again before the next sentence, and say how far we got.
      this.playing = false;
      this.waitingSince = -1;
      this.report();
    }
    for (let c = 1; c < output.length; c++) output[c].set(out);
    if (this.played && currentTime - this.reportedAt >= REPORT_SECONDS) this.report();
    return true;
  }

  report() {
    this.reportedAt = currentTime;
    if (!this.played) return;
    this.port.postMessage({ type: "played", frames: this.played });
    this.played = 0;
  }
}

registerProcessor("parley-capture", ParleyCapture);
registerProcessor("parley-playback", ParleyPlayback);
