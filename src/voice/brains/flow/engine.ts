import { renderTemplate } from "../../../lib/templates.ts";
import type { FlowDefinition, FlowNodeDefinition } from "./schema.ts";
import { containsPhrase, parseSlot, type SlotValue } from "./slots.ts";

/** Where a flow conversation stands; plain JSON, so it can be stored between messages. */
export interface FlowState {
  node: string | null;
  /** True once the current node has spoken its prompt and waits for the caller. */
  waiting: boolean;
  attempts: number;
  slots: Record<string, SlotValue | unknown>;
  done: boolean;
  /** The route step the caller last chose from: its routes stay open from the answer steps after it. */
  menu?: string;
}

export interface FlowAction {
  type: "end" | "transfer";
  number?: string;
}

/** What one step of the conversation produced. */
export interface FlowTurn {
  say: string[];
  /** What the flow waits for next: speech, keyed digits, or nothing (it ended). */
  expects: "speech" | "digits" | null;
  action: FlowAction | null;
  toolCalls: { tool_id: string; arguments: Record<string, string>; ok: boolean; result: unknown }[];
}

export interface FlowDeps {
  /** The best passage for a question from these knowledge bases, or null. */
  answer(question: string, knowledgeBaseIds: string[], minScore: number | undefined): Promise<string | null>;
  callTool(toolId: string, args: Record<string, string>): Promise<{ ok: boolean; result: unknown }>;
  now(): Date;
}

export interface FlowSettings {
  variables: Record<string, unknown>;
  knowledgeBaseIds: string[];
  transferNumber: string | null;
}

/** Steps without waiting for the caller before the flow is declared stuck (a say→say loop). */
const MAX_STEPS = 100;

/**
 * The deterministic brain: walks the flow's nodes, speaking and collecting typed slots, until it
 * needs the caller again. Pure apart from the injected dependencies.
 */
export class FlowEngine {
  constructor(
    private flow: FlowDefinition,
    private settings: FlowSettings,
    private deps: FlowDeps,
  ) {}

  initialState(): FlowState {
    return { node: this.flow.start, waiting: false, attempts: 0, slots: {}, done: false };
  }

  /** Runs from the current node until input is needed. */
  async start(state: FlowState): Promise<FlowTurn> {
    return this.run(state, null);
  }

  /** Feeds what the caller said (or keyed) to the node that waits for it. */
  async input(state: FlowState, input: { text?: string; digits?: string }): Promise<FlowTurn> {
    return this.run(state, input);
  }

  private async run(state: FlowState, input: { text?: string; digits?: string } | null): Promise<FlowTurn> {
    const turn: FlowTurn = { say: [], expects: null, action: null, toolCalls: [] };
    let pending = input;
    for (let step = 0; step < MAX_STEPS; step++) {
      if (state.done || state.node === null) return turn;
      const node = this.flow.nodes[state.node];
      if (!node) return this.finish(state, turn, { type: "end" });
      const outcome = await this.step(node, state, pending, turn);
      if (outcome === "wait") {
        turn.expects = node.type === "ask" && node.slot.type === "digits" ? "digits" : "speech";
        return turn;
      }
      pending = null; // input is consumed by the node that waited for it
      if (outcome === "finished") return turn;
    }
    turn.say.push("Sorry, something went wrong on our side.");
    return this.finish(state, turn, { type: "end" });
  }

  private say(turn: FlowTurn, state: FlowState, text: string | undefined): void {
    if (!text) return;
    const rendered = renderTemplate(text, state.slots, this.settings.variables).trim();
    if (rendered) turn.say.push(rendered);
  }

  private go(state: FlowState, next: string): "next" {
    state.node = next;
    state.waiting = false;
    state.attempts = 0;
    return "next";
  }

  private finish(state: FlowState, turn: FlowTurn, action: FlowAction): FlowTurn {
    state.done = true;
    state.node = null;
    turn.action = action;
    return turn;
  }

  private async step(node: FlowNodeDefinition, state: FlowState, input: { text?: string; digits?: string } | null, turn: FlowTurn): Promise<"wait" | "next" | "finished"> {
    switch (node.type) {
      case "say":
        this.say(turn, state, node.text);
        return this.go(state, node.next);
      case "branch": {
        const match = node.cases.find((c) => matches(state.slots[c.slot], c.op, c.value));
        return this.go(state, match ? match.next : node.default);
      }
      case "tool": {
        const args = Object.fromEntries(Object.entries(node.arguments ?? {}).map(([k, v]) => [k, renderTemplate(v, state.slots, this.settings.variables)]));
        const result = await this.deps.callTool(node.tool_id, args);
        turn.toolCalls.push({ tool_id: node.tool_id, arguments: args, ...result });
        if (!result.ok && node.on_error) return this.go(state, node.on_error);
        if (node.save_as) state.slots[node.save_as] = result.result;
        this.say(turn, state, node.text);
        return this.go(state, node.next);
      }
      case "transfer":
        this.say(turn, state, node.text);
        this.finish(state, turn, { type: "transfer", number: node.number ?? this.settings.transferNumber ?? undefined });
        return "finished";
      case "end":
        this.say(turn, state, node.text);
        this.finish(state, turn, { type: "end" });
        return "finished";
    }
    // Nodes that listen: prompt once, then wait for the caller.
    if (!state.waiting || !input) {
      if (!state.waiting) this.say(turn, state, node.text);
      state.waiting = true;
      return "wait";
    }
    const heard = input.text ?? input.digits ?? "";
    switch (node.type) {
      case "ask": {
        const value = parseSlot(node.slot, input, this.deps.now());
        if (value !== null) {
          state.slots[node.slot.name] = value;
          return this.go(state, node.next);
        }
        state.attempts++;
        if (state.attempts >= (node.max_attempts ?? 3)) return this.go(state, node.on_failure ?? node.next);
        this.say(turn, state, node.reprompt ?? node.text);
        return "wait";
      }
      case "route": {
        const route = routeFor(node, heard);
        state.menu = state.node!;
        return this.go(state, route ? route.next : node.default);
      }
      case "answer": {
        const kbs = node.knowledge_base_ids ?? this.settings.knowledgeBaseIds;
        const answer = kbs.length ? await this.deps.answer(heard, kbs, node.min_score) : null;
        state.slots.last_question = heard;
        // A caller can change topic here (a misheard question at the menu may have sent them): words it
        // has no answer for that name a route of their last menu take it, except one back to this step,
        // or one that hangs up: a question it cannot answer must not end the call for holding a "no".
        const menu = answer === null && state.menu ? this.flow.nodes[state.menu] : undefined;
        const detour = menu?.type === "route" ? routeFor(menu, heard, (next) => next !== state.node && this.flow.nodes[next]?.type !== "end") : undefined;
        if (detour) return this.go(state, detour.next);
        turn.say.push(answer ?? renderTemplate(node.fallback, state.slots, this.settings.variables));
        return this.go(state, node.next);
      }
    }
  }
}

type RouteNode = Extract<FlowNodeDefinition, { type: "route" }>;

/** The first of a route step's routes whose keywords the caller said (among those whose next step `allowed` takes). */
function routeFor(node: RouteNode, heard: string, allowed: (next: string) => boolean = () => true): RouteNode["routes"][number] | undefined {
  return node.routes.find((route) => allowed(route.next) && route.keywords.some((keyword) => containsPhrase(heard, keyword)));
}

function matches(value: unknown, op: string, expected: unknown): boolean {
  switch (op) {
    case "exists":
      return value !== undefined && value !== null && value !== "";
    case "missing":
      return value === undefined || value === null || value === "";
    case "eq":
      return typeof value === "string" && typeof expected === "string" ? value.toLowerCase() === expected.toLowerCase() : value === expected;
    case "neq":
      return !matches(value, "eq", expected);
    case "in":
      return Array.isArray(expected) && expected.some((e) => matches(value, "eq", e));
    case "gt":
      return Number(value) > Number(expected);
    case "gte":
      return Number(value) >= Number(expected);
    case "lt":
      return Number(value) < Number(expected);
    case "lte":
      return Number(value) <= Number(expected);
    default:
      return false;
  }
}
