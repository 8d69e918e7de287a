// A text conversation with the agent's real brain (POST /v1/agents/{id}/chat): the greeting, each turn,
// the tools it called, and how the conversation ended. Nothing is dialled and no call is billed.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Agent, AgentChatResponse } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { ProblemNotice } from "../../ui/status.tsx";

interface Line {
  role: "you" | "agent" | "note";
  text: string;
}

/** What a turn adds to the conversation: the agent's lines, then its tool calls and ending. */
function linesOf(turn: AgentChatResponse): Line[] {
  const lines: Line[] = turn.messages.map((m) => ({ role: "agent", text: m.text }));
  for (const call of turn.tool_calls) lines.push({ role: "note", text: `Called ${call.name}(${JSON.stringify(call.arguments)}): ${call.ok ? "ok" : "failed"}` });
  if (turn.error) lines.push({ role: "note", text: `Provider error, covered by the fallback line: ${turn.error}` });
  if (turn.action?.type === "transfer") lines.push({ role: "note", text: `Transferred to ${turn.action.number ?? "the transfer number"}` });
  if (turn.ended) lines.push({ role: "note", text: "The agent ended the conversation." });
  return lines;
}

export function AgentPlayground({ agent }: { agent: Agent }) {
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [ended, setEnded] = useState(false);
  const [message, setMessage] = useState("");
  const action = useAction();
  const log = useRef<HTMLDivElement>(null);
  useEffect(() => log.current?.scrollTo(0, log.current.scrollHeight), [lines]);

  const turn = (text: string | undefined) =>
    action.run(async () => {
      const answer = await session.client.agents.chat(agent.id, { message: text, session_id: sessionId ?? undefined });
      setSessionId(answer.session_id);
      setEnded(answer.ended);
      setLines((before) => [...before, ...(text ? [{ role: "you" as const, text }] : []), ...linesOf(answer)]);
    });
  const send = async (event: Event) => {
    event.preventDefault();
    const text = message.trim();
    if (!text) return;
    if (await turn(text)) setMessage("");
  };
  const restart = () => {
    setSessionId(null);
    setLines([]);
    setEnded(false);
    action.reset();
  };
  return (
    <section class="agents-chat" aria-labelledby="agent-playground-title">
      <h2 id="agent-playground-title">Playground</h2>
      <p class="muted">Chat with the saved configuration (version {agent.version}) in text. The flow or model, knowledge bases and tools all run for real.</p>
      <div class="agents-log" role="log" aria-label="Conversation" ref={log} tabIndex={0}>
        {lines.length === 0 && <p class="muted">{sessionId ? "The agent said nothing yet." : "Start the conversation to hear the greeting, or just type."}</p>}
        {lines.map((line, i) => (
          <p key={i} class={`agents-line ${line.role}`}>
            <span class="visually-hidden">{line.role === "you" ? "You: " : line.role === "agent" ? "Agent: " : ""}</span>
            {line.text}
          </p>
        ))}
      </div>
      <ProblemNotice problem={action.problem} />
      <form class="agents-say" onSubmit={send}>
        <label for="agent-message" class="visually-hidden">
          Message
        </label>
        <input id="agent-message" name="message" autocomplete="off" placeholder={ended ? "The conversation has ended" : "Type what the caller says…"} value={message} disabled={ended} onInput={(e) => setMessage(e.currentTarget.value)} />
        <button type="submit" class="button primary" disabled={action.busy || ended}>
          Send
        </button>
      </form>
      <div class="actions agents-start">
        {!sessionId && (
          <button type="button" class="button secondary" disabled={action.busy} onClick={() => turn(undefined)}>
            Start with the greeting
          </button>
        )}
        {sessionId && (
          <button type="button" class="button secondary" onClick={restart}>
            New conversation
          </button>
        )}
      </div>
    </section>
  );
}
