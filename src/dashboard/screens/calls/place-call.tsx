// Place an outbound call: the agent, the number to call and, on the built-in simulated carrier, what the
// simulated person says (one line per turn), so a newcomer can hear an agent without a phone line. A call
// comes from the agent's own number; an agent without one gets a From choice and a one-click simulated
// number, so the form never ends in a refusal it could have prevented.
import { useState } from "preact/hooks";
import type { Agent, Call, PhoneNumber } from "../../../sdk/ts/src/index.ts";
import type { Problem } from "../../lib/problem.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad, type Loaded } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";
import { agentPath } from "../agents/agents.tsx";
import { allNumbers } from "../numbers/workspace-lists.ts";

const SAMPLE_LINES = "Hi, what are your opening hours?\nThanks, goodbye";

export function PlaceCall({ agents, onPlaced, onCancel }: { agents: Agent[]; onPlaced: (call: Call) => void; onCancel: () => void }) {
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const [numbers, reloadNumbers] = useLoad(allNumbers, []);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("+14155550123");
  const [lines, setLines] = useState(SAMPLE_LINES);
  const [got, setGot] = useState<PhoneNumber | null>(null);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const agent = agents.find((each) => each.id === agentId);
  const list = numbers.status === "ready" ? numbers.data : [];
  const own = list.find((number) => number.agent_id === agentId);
  // Without a number of its own the call needs a From; the first of the workspace's is chosen until the person picks.
  const chosenFrom = own ? undefined : list.some((number) => number.number === from) ? from : list[0]?.number;
  const submit = async (event: Event) => {
    event.preventDefault();
    const said = lines.split("\n").map((line) => line.trim()).filter(Boolean);
    await action.run(async () => onPlaced(await session.client.calls.outbound({ agent_id: agentId, to: to.trim(), ...(chosenFrom ? { from: chosenFrom } : {}), ...(said.length ? { simulation: { lines: said } } : {}) })));
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="place-call-title">
      <h2 id="place-call-title">Place a call</h2>
      <CallProblem problem={action.problem} agentId={agentId} />
      {got && got.agent_id === agentId && <Success>{got.number} is now {agent?.name}'s number, on the built-in simulated carrier.</Success>}
      <SelectField label="Agent" name="agent_id" value={agentId} onChange={setAgentId} options={agents.map((each) => ({ value: each.id, label: each.name }))} error={fields.agent_id} hint={fromHint(numbers, own)} />
      {agent && numbers.status === "ready" && !own && (
        <NoNumber
          agent={agent}
          numbers={list}
          from={chosenFrom ?? ""}
          onFrom={setFrom}
          error={fields.from}
          onAssigned={(number) => {
            setGot(number);
            action.reset();
            reloadNumbers();
          }}
        />
      )}
      <Field label="To" name="to" type="tel" required value={to} error={fields.to} hint="E.164, e.g. +14155550123." onInput={(e) => setTo(e.currentTarget.value)} />
      <TextAreaField
        label="What the simulated person says"
        name="simulation.lines"
        value={lines}
        error={fields["simulation.lines"] ?? fields.simulation}
        hint="Only on the built-in simulated carrier: one line per turn. Leave empty for a real call."
        onInput={(e) => setLines(e.currentTarget.value)}
      />
      <FormActions submit="Call" busy={action.busy} busyLabel="Calling…" onCancel={onCancel} />
    </form>
  );
}

/** What the agent field says about the number the call comes from: only what is true. */
function fromHint(numbers: Loaded<PhoneNumber[]>, own: PhoneNumber | undefined): string {
  if (numbers.status === "loading") return "Looking up its phone number…";
  if (numbers.status === "failed") return "Its phone number could not be looked up: the call comes from its assigned number, if it has one.";
  return own ? `It calls from ${own.number}, its number.` : "It has no phone number of its own yet.";
}

/** An agent without a number: call from another of the workspace's numbers, or get one and give it to the agent in one go. */
function NoNumber({ agent, numbers, from, onFrom, error, onAssigned }: { agent: Agent; numbers: PhoneNumber[]; from: string; onFrom: (number: string) => void; error?: string; onAssigned: (number: PhoneNumber) => void }) {
  const getting = useAction();
  const getNumber = () =>
    getting.run(async () => {
      const bought = await session.client.phoneNumbers.buy({ carrier_id: "simulated" });
      onAssigned(await session.client.phoneNumbers.assign(bought.id, { agent_id: agent.id }));
    });
  return (
    <div class="calls-no-number">
      <ProblemNotice problem={getting.problem} />
      {numbers.length > 0 && (
        <SelectField
          label="From"
          name="from"
          value={from}
          onChange={onFrom}
          options={numbers.map((number) => ({ value: number.number, label: number.label ? `${number.number} (${number.label})` : number.number }))}
          error={error}
          hint={`${agent.name} has no number of its own: this call comes from the one chosen here.`}
        />
      )}
      <p>{numbers.length ? `Or give ${agent.name} a number of its own:` : `${agent.name} needs a phone number to call from.`}</p>
      <p>
        <button type="button" class="button secondary" disabled={getting.busy} onClick={getNumber}>
          {getting.busy ? "Getting a number…" : "Get a number and assign it"}
        </button>
      </p>
      <p class="muted small">
        A number on the built-in simulated carrier, which dials no real phone. Numbers of a real carrier are bought or imported on <Link href={PAGES.numbers}>Numbers</Link>.
      </p>
    </div>
  );
}

/** The call's refusal in words; an agent that cannot call yet gets a way to fix it instead of the API's instructions. */
function CallProblem({ problem, agentId }: { problem: Problem | null; agentId: string }) {
  if (problem?.code !== "agent_not_ready") return <ProblemNotice problem={problem} />;
  const reasons = Object.values(problem.fields);
  if (!reasons.length) {
    return (
      <ProblemNotice problem={{ ...problem, message: "This agent has no phone number to call from." }}>
        <p>
          Get one with “Get a number and assign it” below, or assign one on <Link href={PAGES.numbers}>Numbers</Link>.
        </p>
      </ProblemNotice>
    );
  }
  return (
    <ProblemNotice problem={{ ...problem, message: "This agent cannot take calls yet:" }}>
      <ul>
        {reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <p>
        <Link href={agentPath(agentId)}>Open its settings</Link>
      </p>
    </ProblemNotice>
  );
}
