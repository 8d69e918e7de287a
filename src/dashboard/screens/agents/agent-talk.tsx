// "Talk to this agent": a real browser voice call (the microphone, the agent's voice, live captions),
// through the voice client the binary serves at /assets/voice-client.js and a single-use token from
// POST /v1/realtime/token. The call is listed with the others (direction web). A keypad sends phone keys
// (DTMF) during the call, as a caller's phone would.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Agent } from "../../../sdk/ts/src/index.ts";
import { problemOf, type Problem } from "../../lib/problem.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { LoadState, ProblemNotice } from "../../ui/status.tsx";

interface VoiceCall {
  hangup(): void;
  sendDigit(digit: string): void;
  callId: string | null;
}

interface VoiceClient {
  connect(options: { url: string; onTranscript: (role: string, text: string) => void; onState: (state: string) => void; onEnded: (reason: string) => void }): Promise<VoiceCall>;
}

declare global {
  interface Window {
    ParleyVoice?: VoiceClient;
  }
}

let loading: Promise<VoiceClient> | null = null;

/** The voice client, loaded once from the server (a same-origin script, which the page's CSP allows). */
function voiceClient(): Promise<VoiceClient> {
  if (window.ParleyVoice) return Promise.resolve(window.ParleyVoice);
  loading ??= new Promise<VoiceClient>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = `${session.client.baseUrl}/assets/voice-client.js`;
    script.onload = () => (window.ParleyVoice ? resolve(window.ParleyVoice) : reject(new Error("the voice client did not load")));
    script.onerror = () => {
      loading = null;
      script.remove();
      reject(new Error("The voice client could not be loaded. Check your connection and try again."));
    };
    document.head.append(script);
  });
  return loading;
}

type CallState = "idle" | "starting" | "connecting" | "connected" | "ending" | "ended";

const KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"];

/** The phone keys, each sent at once; what was pressed is shown (and announced) below. */
function Keypad({ onKey }: { onKey: (key: string) => void }) {
  const [pressed, setPressed] = useState("");
  return (
    <div class="agents-keypad" role="group" aria-label="Keypad">
      <div class="agents-keys">
        {KEYS.map((key) => (
          <button key={key} type="button" class="button secondary" aria-label={`Key ${key}`} onClick={() => (onKey(key), setPressed((before) => (before + key).slice(-32)))}>
            {key}
          </button>
        ))}
      </div>
      <p class="muted" aria-live="polite">
        {pressed ? `Keys sent: ${pressed}` : "Keys you press are sent to the agent."}
      </p>
    </div>
  );
}

const STATE_TEXT: Record<CallState, string> = {
  idle: "Not in a call",
  starting: "Asking for the microphone…",
  connecting: "Connecting…",
  connected: "In the call: speak now",
  ending: "Hanging up…",
  ended: "Call ended",
};

export function AgentTalk({ agent }: { agent: Agent }) {
  const [health, recheck] = useLoad(() => session.client.realtime.health({ agent_id: agent.id }), [agent.id, agent.version]);
  const [state, setState] = useState<CallState>("idle");
  const [captions, setCaptions] = useState<{ role: string; text: string }[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [endReason, setEndReason] = useState<string | null>(null);
  const call = useRef<VoiceCall | null>(null);
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => log.current?.scrollTo(0, log.current.scrollHeight), [captions]);
  // Leaving the tab ends the call: the microphone is never left open.
  useEffect(() => () => call.current?.hangup(), []);

  const start = async () => {
    setProblem(null);
    setCaptions([]);
    setEndReason(null);
    setState("starting");
    try {
      const client = await voiceClient();
      const token = await session.client.realtime.createToken({ agent_id: agent.id });
      call.current = await client.connect({
        url: token.url,
        onTranscript: (role, text) => setCaptions((before) => [...before, { role, text }]),
        onState: (next) => setState(next as CallState),
        onEnded: (reason) => {
          setEndReason(reason);
          setState("ended");
          call.current = null;
        },
      });
    } catch (error) {
      session.check(error);
      const found = problemOf(error);
      // The browser refuses the microphone with a DOMException named for why.
      if (error instanceof DOMException && error.name === "NotAllowedError") found.message = "The browser was not allowed to use the microphone. Allow it for this site and try again.";
      setProblem(found);
      setState("idle");
    }
  };
  const inCall = state === "starting" || state === "connecting" || state === "connected" || state === "ending";
  const ready = health.status === "ready" ? health.data.agent?.ready !== false : true;
  return (
    <section aria-labelledby="agent-talk-title">
      <h2 id="agent-talk-title">Talk to this agent</h2>
      <p class="muted">A voice call in this browser, with your microphone, using the saved configuration (version {agent.version}). It is a real call: it is recorded and billed like any web call.</p>
      <LoadState state={health} label="Checking the voice configuration…" onRetry={recheck} />
      {health.status === "ready" && health.data.agent && !health.data.agent.ready && (
        <div class="notice error" role="alert">
          <p>This agent cannot hold a voice call yet:</p>
          <ul>
            {health.data.agent.problems.map((p) => (
              <li key={p.field}>
                <code>{p.field}</code>: {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <ProblemNotice problem={problem} />
      <div class="agents-row">
        <p class="agents-call-state" role="status">
          {STATE_TEXT[state] ?? state}
          {state === "ended" && endReason ? ` (${endReason.replace(/_/g, " ")})` : ""}
        </p>
        {inCall ? (
          <button type="button" class="button danger" disabled={state === "ending"} onClick={() => call.current?.hangup()}>
            Hang up
          </button>
        ) : (
          <button type="button" class="button primary" disabled={!ready} onClick={start}>
            {state === "ended" ? "Call again" : "Start call"}
          </button>
        )}
      </div>
      {state === "connected" && <Keypad onKey={(key) => call.current?.sendDigit(key)} />}
      <div class="agents-log" role="log" aria-label="Captions" ref={log} tabIndex={0}>
        {captions.length === 0 && <p class="muted">Captions of both sides appear here.</p>}
        {captions.map((line, i) => (
          <p key={i} class={`agents-line ${line.role === "agent" ? "agent" : "you"}`}>
            <span class="visually-hidden">{line.role === "agent" ? "Agent: " : "You: "}</span>
            {line.text}
          </p>
        ))}
      </div>
    </section>
  );
}
