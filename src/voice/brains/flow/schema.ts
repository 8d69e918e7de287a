import { t, type Static } from "elysia";
import { OneOf } from "../../../http/models.ts";

// A deterministic conversation: nodes that say, ask for typed slots, branch, answer from knowledge
// bases, call tools, transfer and end. Agents built on it need no language model at all.

const NodeId = t.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "Id of another node in `nodes`" });
const Text = (description: string) => t.String({ minLength: 1, maxLength: 2000, description: `${description}. May use {{variables}} and {{slot}} values` });

export const SLOT_TYPES = ["string", "number", "boolean", "enum", "digits", "email", "date"] as const;

export const Slot = t.Object(
  {
    name: t.String({ pattern: "^[a-z][a-z0-9_]{0,63}$", description: "Where the value is kept; later text can use {{name}}" }),
    type: OneOf(SLOT_TYPES),
    options: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50, description: "enum: the allowed values" })),
    length: t.Optional(t.Integer({ minimum: 1, maximum: 32, description: "digits: how many (DTMF or spoken)" })),
  },
  { additionalProperties: false },
);

const Say = t.Object({ type: t.Literal("say"), text: Text("What the agent says"), next: NodeId }, { additionalProperties: false });

const Ask = t.Object(
  {
    type: t.Literal("ask"),
    text: Text("The question"),
    slot: Slot,
    reprompt: t.Optional(Text("Said when the answer could not be understood")),
    max_attempts: t.Optional(t.Integer({ minimum: 1, maximum: 10, default: 3 })),
    next: NodeId,
    on_failure: t.Optional(NodeId),
  },
  { additionalProperties: false },
);

const Condition = t.Object(
  {
    slot: t.String({ minLength: 1 }),
    op: OneOf(["eq", "neq", "gt", "gte", "lt", "lte", "in", "exists", "missing"]),
    value: t.Optional(t.Union([t.String(), t.Number(), t.Boolean(), t.Array(t.Union([t.String(), t.Number()]))])),
    next: NodeId,
  },
  { additionalProperties: false },
);

const Branch = t.Object(
  { type: t.Literal("branch"), cases: t.Array(Condition, { minItems: 1, maxItems: 50 }), default: NodeId },
  { additionalProperties: false, description: "Chooses by slot values; the first matching case wins" },
);

const Route = t.Object(
  {
    type: t.Literal("route"),
    text: t.Optional(Text("A prompt before listening")),
    routes: t.Array(
      t.Object({ keywords: t.Array(t.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 }), next: NodeId }, { additionalProperties: false }),
      { minItems: 1, maxItems: 50 },
    ),
    default: NodeId,
  },
  { additionalProperties: false, description: "Listens, then chooses by the caller's words" },
);

const Answer = t.Object(
  {
    type: t.Literal("answer"),
    text: t.Optional(Text("A prompt before listening")),
    knowledge_base_ids: t.Optional(t.Array(t.String(), { maxItems: 20, description: "Default: the agent's knowledge bases" })),
    fallback: Text("Said when nothing relevant is found"),
    min_score: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    next: NodeId,
  },
  {
    additionalProperties: false,
    description:
      "Listens for a question and answers it from knowledge bases. Words they have no answer for that hold a keyword of the route step the caller last chose from take that route (not one back to this step, nor one to an end step) before the fallback is said.",
  },
);

const CallTool = t.Object(
  {
    type: t.Literal("tool"),
    tool_id: t.String({ description: "`tool_…`" }),
    arguments: t.Optional(t.Record(t.String(), t.String({ maxLength: 2000 }), { description: "Argument values; {{slot}} templates allowed" })),
    save_as: t.Optional(t.String({ pattern: "^[a-z][a-z0-9_]{0,63}$", description: "Slot that keeps the result" })),
    text: t.Optional(Text("Said after the call (e.g. 'Your order is {{order_status}}')")),
    next: NodeId,
    on_error: t.Optional(NodeId),
  },
  { additionalProperties: false },
);

const Transfer = t.Object(
  { type: t.Literal("transfer"), text: t.Optional(Text("Said before transferring")), number: t.Optional(t.String({ description: "E.164 or SIP URI; default the agent's transfer_number" })) },
  { additionalProperties: false },
);

const End = t.Object({ type: t.Literal("end"), text: t.Optional(Text("Said before hanging up")) }, { additionalProperties: false });

export const FlowNode = t.Union([Say, Ask, Branch, Route, Answer, CallTool, Transfer, End]);

export const Flow = t.Object(
  {
    start: NodeId,
    nodes: t.Record(t.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), FlowNode, { description: "Node id → node", additionalProperties: false }),
  },
  { additionalProperties: false },
);

export type FlowDefinition = Static<typeof Flow>;
export type FlowNodeDefinition = Static<typeof FlowNode>;
export type SlotDefinition = Static<typeof Slot>;

/** The flow of an agent created with only a name and a greeting: answer questions from its knowledge bases. */
export function defaultFlow(): FlowDefinition {
  return {
    start: "answer",
    nodes: {
      answer: { type: "answer", fallback: "I'm sorry, I don't have an answer to that. Is there anything else I can help with?", next: "answer" },
    },
  };
}

/** Field-level problems with a flow's wiring (the schema checks shapes; this checks references). */
export function flowProblems(flow: FlowDefinition, field: string): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const exists = (id: string | undefined) => id === undefined || id in flow.nodes;
  if (!exists(flow.start)) problems.push({ field: `${field}.start`, message: `no node "${flow.start}"` });
  for (const [id, node] of Object.entries(flow.nodes)) {
    const at = `${field}.nodes.${id}`;
    const refs: [string, string | undefined][] = [];
    if ("next" in node) refs.push(["next", node.next]);
    if (node.type === "ask") refs.push(["on_failure", node.on_failure]);
    if (node.type === "tool") refs.push(["on_error", node.on_error]);
    if (node.type === "branch") {
      refs.push(["default", node.default]);
      node.cases.forEach((c, i) => refs.push([`cases[${i}].next`, c.next]));
    }
    if (node.type === "route") {
      refs.push(["default", node.default]);
      node.routes.forEach((r, i) => refs.push([`routes[${i}].next`, r.next]));
    }
    for (const [name, ref] of refs) if (!exists(ref)) problems.push({ field: `${at}.${name}`, message: `no node "${ref}"` });
    if (node.type === "ask" && node.slot.type === "enum" && !node.slot.options?.length) {
      problems.push({ field: `${at}.slot.options`, message: "an enum slot needs options" });
    }
  }
  return problems;
}
