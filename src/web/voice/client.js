// The browser voice client: a classic script (works from a plain <script> tag, and the widget loads it
// on demand) that defines window.ParleyVoice. One connect() is one call: microphone -> AudioWorklet ->
// PCM16 over a WebSocket, the agent's PCM16 back into a playback worklet. It never reconnects: when the
// socket closes the call is over, the microphone is released and the AudioContext closed.
//
//   const session = await ParleyVoice.connect({ url, onTranscript(role, text), onState(state), onEnded(reason), workletUrl? });
//   session.hangup(); session.sendDigit("5"); session.stats; session.callId; session.state
//
// States: "connecting" (socket open, no session yet) -> "connected" -> "ending" (hangup sent) -> "ended".
(function () {
  "use strict";
  if (window.ParleyVoice) return;

  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, location.href).origin : location.origin;
  var RATES = [16000, 48000];
  // After a hangup, how long the server has to say "ended" and close before we close ourselves.
  var HANGUP_GRACE_MS = 3000;

  /**
   * An AudioContext the microphone can feed, at 16 kHz if the browser allows, else 48 kHz; failing both
   * (a browser bound to the device rate), the device rate with the worklets resampling to 48 kHz.
   */
  function openAudio(stream) {
    for (var i = 0; i < RATES.length; i++) {
      var context = null;
      try {
        context = new AudioContext({ sampleRate: RATES[i] });
        if (context.sampleRate !== RATES[i]) throw new Error("rate refused");
        // Some browsers refuse a microphone at another rate than the context's only here.
        return { context: context, source: context.createMediaStreamSource(stream), rate: RATES[i] };
      } catch (error) {
        if (context) context.close().catch(function () {});
      }
    }
    var fallback = new AudioContext();
    return { context: fallback, source: fallback.createMediaStreamSource(stream), rate: 48000 };
  }

  function withRate(url, rate) {
    return url + (url.indexOf("?") < 0 ? "?" : "&") + "rate=" + rate;
  }

  async function connect(options) {
    if (!options || !options.url) throw new TypeError("ParleyVoice.connect needs the url from the voice token");
    var noop = function () {};
    var onTranscript = options.onTranscript || noop;
    var onState = options.onState || noop;
    var onEnded = options.onEnded || noop;
    var workletUrl = options.workletUrl || origin + "/assets/voice-worklet.js";

    // Only secure pages (https, localhost) get a microphone; say so rather than fail on undefined.
    if (!navigator.mediaDevices) throw new Error("voice calls need a secure (https) page");
    var stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
    var audio = null;
    var capture, playback;
    try {
      audio = openAudio(stream);
      await audio.context.audioWorklet.addModule(workletUrl);
      capture = new AudioWorkletNode(audio.context, "parley-capture", { processorOptions: { rate: audio.rate } });
      playback = new AudioWorkletNode(audio.context, "parley-playback", {
        numberOfInputs: 0,
        outputChannelCount: [1],
        processorOptions: { rate: audio.rate },
      });
    } catch (error) {
      stream.getTracks().forEach(function (track) { track.stop(); });
      if (audio) audio.context.close().catch(noop);
      throw error;
    }
    var context = audio.context;
    var rate = audio.rate;
    audio.source.connect(capture);
    // The capture node outputs silence; connected so the browser keeps pulling it.
    capture.connect(context.destination);
    playback.connect(context.destination);
    // Created after awaits, so it may start suspended (autoplay rules); the call's click allows resuming.
    context.resume().catch(noop);

    // clears: barge-ins, each dropping what was queued for playback.
    var stats = { framesSent: 0, framesReceived: 0, framesPlayed: 0, clears: 0 };
    var socket = new WebSocket(withRate(options.url, rate));
    socket.binaryType = "arraybuffer";
    var endReason = null;
    var finished = false;
    var hangupTimer = null;

    var session = {
      callId: null,
      sampleRate: rate,
      state: "connecting",
      stats: stats,
      hangup: function () {
        if (finished || session.state === "ending") return;
        setState("ending");
        // The microphone goes off at once; the server confirms with "ended" and closes.
        stopMicrophone();
        send({ type: "hangup" });
        if (socket.readyState !== WebSocket.OPEN) return finish("hangup");
        hangupTimer = setTimeout(function () {
          socket.close(1000, "hangup");
          finish("hangup");
        }, HANGUP_GRACE_MS);
      },
      sendDigit: function (digit) {
        digit = String(digit);
        if (!/^[0-9*#A-D]$/.test(digit)) throw new RangeError("DTMF digit must be one of 0-9 * # A-D");
        send({ type: "dtmf", digit: digit });
      },
    };

    function setState(state) {
      if (session.state === state) return;
      session.state = state;
      onState(state);
    }

    function send(message) {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    }

    function stopMicrophone() {
      stream.getTracks().forEach(function (track) { track.stop(); });
      audio.source.disconnect();
    }

    function finish(reason) {
      if (finished) return;
      finished = true;
      clearTimeout(hangupTimer);
      stopMicrophone();
      capture.port.onmessage = null;
      playback.port.onmessage = null;
      context.close().catch(noop);
      if (socket.readyState < WebSocket.CLOSING) socket.close(1000, "ended");
      setState("ended");
      onEnded(reason);
    }

    capture.port.onmessage = function (event) {
      if (socket.readyState !== WebSocket.OPEN || session.state === "ending") return;
      socket.send(event.data);
      stats.framesSent++;
    };
    playback.port.onmessage = function (event) {
      if (event.data && event.data.type === "played") stats.framesPlayed += event.data.frames;
    };

    socket.onmessage = function (event) {
      if (event.data instanceof ArrayBuffer) {
        stats.framesReceived++;
        playback.port.postMessage(event.data, [event.data]);
        return;
      }
      var message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (message.type === "session") {
        session.callId = message.call_id;
        setState("connected");
      } else if (message.type === "transcript") {
        onTranscript(message.role, message.text);
      } else if (message.type === "clear") {
        stats.clears++;
        playback.port.postMessage({ type: "clear" });
      } else if (message.type === "ended") {
        endReason = message.reason || "ended";
      }
    };

    var opened = false;
    var failed = null; // Rejects connect() while the socket has not opened yet.
    // The call never started (refused token, server gone, blocked by CSP, which fires no close):
    // connect() rejects and onEnded is not called.
    function failBeforeOpen(detail) {
      if (finished) return;
      finished = true;
      stopMicrophone();
      context.close().catch(noop);
      failed(new Error("could not connect the voice session" + (detail ? ": " + detail : "")));
    }
    socket.onerror = function () {
      if (!opened) failBeforeOpen("");
    };
    socket.onclose = function (event) {
      if (!opened) return failBeforeOpen(event.reason);
      finish(endReason || (session.state === "ending" ? "hangup" : event.reason || "disconnected"));
    };

    onState("connecting");
    await new Promise(function (resolve, reject) {
      failed = reject;
      socket.onopen = function () {
        opened = true;
        resolve();
      };
    });
    return session;
  }

  window.ParleyVoice = { connect: connect };
})();
