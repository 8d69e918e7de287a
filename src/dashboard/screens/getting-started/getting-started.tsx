// Where sign-up lands (and the sidebar's first entry): the first steps with a way into each, ticked off
// from what the workspace really holds, so it reads true on any visit, from any browser.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { withQuery } from "../../lib/router.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { LoadState } from "../../ui/status.tsx";
import { agentPath, openCreated } from "../agents/agents.tsx";
import { CreateAgent } from "../agents/create-agent.tsx";
import { firstSteps, stepsDone, type StepState } from "./first-steps.ts";

const STATE_WORDS: Record<StepState, string> = { done: "Done", todo: "To do", unknown: "Ask an admin" };

function Step({ state, title, children }: { state: StepState; title: string; children: ComponentChildren }) {
  return (
    <li class={`start-step start-${state}`}>
      <span class="start-mark" aria-hidden="true">
        {state === "done" ? "✓" : ""}
      </span>
      <div>
        <h2 class="start-title">
          {title} <span class="badge">{STATE_WORDS[state]}</span>
        </h2>
        {children}
      </div>
    </li>
  );
}

export function GettingStarted() {
  const [steps, reload] = useLoad(firstSteps, []);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader title="Getting started" description="Five steps from an empty workspace to an agent your own systems use. Each is ticked off once it is done; come back here from the sidebar at any time." />
      <LoadState state={steps} label="Checking your workspace…" onRetry={reload} />
      {steps.status === "ready" && (
        <>
          <p class="muted" data-testid="start-progress">
            {stepsDone(steps.data)} of 5 done
          </p>
          <ol class="start-steps">
            <Step state={steps.data.agentCreated} title="Create an agent from a template">
              <p>An agent answers and places calls. The receptionist template needs no language model: it works on this instance as it is.</p>
              {creating ? (
                <CreateAgent onCreated={openCreated} onCancel={() => setCreating(false)} />
              ) : (
                <div class="start-actions">
                  <button type="button" class={steps.data.agentCreated === "done" ? "button secondary" : "button primary"} onClick={() => setCreating(true)}>
                    New agent
                  </button>
                  <Link href={PAGES.agents}>All agents</Link>
                </div>
              )}
            </Step>
            <Step state={steps.data.talkedInBrowser} title="Talk to it in the browser">
              <p>Speak to your agent with your microphone, as a caller would: no phone line needed.</p>
              {steps.data.agent ? <Link href={agentPath(steps.data.agent.id, "talk")}>Talk to {steps.data.agent.name}</Link> : <p class="muted small">Create an agent first.</p>}
            </Step>
            <Step state={steps.data.placedCall} title="Place a simulated call">
              <p>The built-in simulated carrier calls a pretend person who says the lines you write: you get a recording and a transcript, and nothing is dialled.</p>
              {steps.data.agent ? <Link href={withQuery(PAGES.calls, { place: "1" })}>Place a call</Link> : <p class="muted small">Create an agent first.</p>}
            </Step>
            <Step state={steps.data.keyCreated} title="Create an API key">
              <p>Your own servers call the API with a key: to place calls, read transcripts, manage agents.</p>
              <Link href={PAGES.apiKeys}>Create a key</Link>
            </Step>
            <Step state={steps.data.webhookAdded} title="Receive webhooks">
              <p>Parley tells your server when a call starts, ends or is analysed, signed so that you can check it came from here.</p>
              <Link href={PAGES.webhooks}>Add an endpoint</Link>
            </Step>
          </ol>
        </>
      )}
    </>
  );
}
