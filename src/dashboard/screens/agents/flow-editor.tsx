// The flow brain as a structured form: the start node, then each node (its id, type and the fields that
// type has, "next" steps chosen among the other nodes). The server checks the whole flow on save; its
// errors[] (`brain.flow.nodes.<id>.<field>`) mark the fields here.
import { useState } from "preact/hooks";
import type { FlowBrain, KnowledgeBase, Tool } from "../../../sdk/ts/src/index.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { Check, errorUnder, ListField, NumberField, type Errors } from "./form-kit.tsx";
import { DangerButton } from "../../ui/actions.tsx";

export type Flow = FlowBrain["flow"];
type FlowNode = Flow["nodes"][string];
type NodeType = FlowNode["type"];
type Ask = Extract<FlowNode, { type: "ask" }>;
type Condition = Extract<FlowNode, { type: "branch" }>["cases"][number];

const PREFIX = "brain.flow";

const NODE_TYPES: { value: NodeType; label: string }[] = [
  { value: "say", label: "Say: speak, then go on" },
  { value: "ask", label: "Ask: a question, kept in a slot" },
  { value: "branch", label: "Branch: choose by slot values" },
  { value: "route", label: "Route: choose by the caller's words" },
  { value: "answer", label: "Answer: from knowledge bases" },
  { value: "tool", label: "Tool: call a function" },
  { value: "transfer", label: "Transfer the call" },
  { value: "end", label: "End the call" },
];
const SLOT_TYPES = ["string", "number", "boolean", "enum", "digits", "email", "date"].map((value) => ({ value, label: value }));
const OPS = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "exists", "missing"].map((value) => ({ value, label: value }));

export const DEFAULT_FLOW: Flow = { start: "answer", nodes: { answer: { type: "answer", fallback: "I'm sorry, I don't have an answer to that.", next: "answer" } } };

/** A node of another type, keeping what the two share (its text and next step). */
function retype(node: FlowNode, type: NodeType, fallbackNext: string, tools: Tool[]): FlowNode {
  const text = "text" in node ? node.text : undefined;
  const next = "next" in node ? node.next : "default" in node ? node.default : fallbackNext;
  switch (type) {
    case "say":
      return { type, text: text ?? "", next };
    case "ask":
      return { type, text: text ?? "", slot: { name: "answer", type: "string" }, next };
    case "branch":
      return { type, cases: [{ slot: "", op: "eq", value: "", next }], default: next };
    case "route":
      return { type, text, routes: [{ keywords: [], next }], default: next };
    case "answer":
      return { type, text, fallback: "", next };
    case "tool":
      return { type, tool_id: tools[0]?.id ?? "", text, next };
    case "transfer":
      return { type, text };
    case "end":
      return { type, text };
  }
}

/** The flow with node `from` called `to`, and every reference to it following. */
function rename(flow: Flow, from: string, to: string): Flow {
  const ref = (id: string | undefined) => (id === from ? to : id);
  const nodes: Flow["nodes"] = {};
  for (const [id, node] of Object.entries(flow.nodes)) {
    const moved = { ...node } as Record<string, unknown> & FlowNode;
    for (const key of ["next", "on_failure", "on_error", "default"]) if (typeof moved[key] === "string") moved[key] = ref(moved[key] as string);
    if (moved.type === "branch") moved.cases = moved.cases.map((c) => ({ ...c, next: ref(c.next)! }));
    if (moved.type === "route") moved.routes = moved.routes.map((r) => ({ ...r, next: ref(r.next)! }));
    nodes[id === from ? to : id] = moved;
  }
  return { start: ref(flow.start)!, nodes };
}

/** A condition's value as typed: true/false and numbers become themselves, `in` takes a comma list. */
function conditionValue(op: string, text: string): Condition["value"] {
  if (op === "exists" || op === "missing") return undefined;
  const one = (item: string) => (/^-?\d+(\.\d+)?$/.test(item) ? Number(item) : item);
  if (op === "in") return text.split(",").map((item) => one(item.trim())).filter((item) => item !== "");
  if (text === "true" || text === "false") return text === "true";
  return one(text);
}

const valueText = (value: Condition["value"]) => (Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value));

export function FlowEditor({ flow, onChange, errors, tools, knowledgeBases }: { flow: Flow; onChange: (flow: Flow) => void; errors: Errors; tools: Tool[]; knowledgeBases: KnowledgeBase[] }) {
  const [newId, setNewId] = useState("");
  const [newType, setNewType] = useState<NodeType>("say");
  const [addError, setAddError] = useState<string | undefined>();
  const ids = Object.keys(flow.nodes);
  const setNode = (id: string, node: FlowNode) => onChange({ ...flow, nodes: { ...flow.nodes, [id]: node } });
  const remove = (id: string) => {
    const { [id]: _, ...rest } = flow.nodes;
    onChange({ ...flow, nodes: rest });
  };
  const add = () => {
    const id = newId.trim();
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return setAddError("use letters, digits, - and _ (up to 64)");
    if (id in flow.nodes) return setAddError(`there is already a node “${id}”`);
    setAddError(undefined);
    setNewId("");
    onChange({ start: ids.length ? flow.start : id, nodes: { ...flow.nodes, [id]: retype({ type: "end" }, newType, ids[0] ?? id, tools) } });
  };
  return (
    <div class="agents-flow">
      <SelectField label="Start node" name={`${PREFIX}.start`} value={flow.start} error={errors[`${PREFIX}.start`]} onChange={(start) => onChange({ ...flow, start })} options={ids.map((id) => ({ value: id, label: id }))} />
      {errors[`${PREFIX}.nodes`] && <p class="field-error">{errors[`${PREFIX}.nodes`]}</p>}
      {ids.map((id) => (
        <NodeEditor
          key={id}
          id={id}
          node={flow.nodes[id]}
          ids={ids}
          tools={tools}
          knowledgeBases={knowledgeBases}
          errors={errors}
          onChange={(node) => setNode(id, node)}
          onRename={(to) => onChange(rename(flow, id, to))}
          onRemove={ids.length > 1 ? () => remove(id) : undefined}
        />
      ))}
      <fieldset class="agents-node agents-add-node">
        <legend>Add a node</legend>
        <div class="agents-grid">
          <Field label="New node id" name="new_node_id" value={newId} error={addError} onInput={(e) => setNewId(e.currentTarget.value)} />
          <SelectField label="New node type" name="new_node_type" value={newType} onChange={(value) => setNewType(value as NodeType)} options={NODE_TYPES} />
        </div>
        <button type="button" class="button secondary" onClick={add}>
          Add node
        </button>
      </fieldset>
    </div>
  );
}

interface NodeProps {
  id: string;
  node: FlowNode;
  ids: string[];
  tools: Tool[];
  knowledgeBases: KnowledgeBase[];
  errors: Errors;
  onChange: (node: FlowNode) => void;
  onRename: (to: string) => void;
  onRemove?: () => void;
}

function NodeEditor({ id, node, ids, tools, knowledgeBases, errors, onChange, onRename, onRemove }: NodeProps) {
  const at = `${PREFIX}.nodes.${id}`;
  const [idText, setIdText] = useState(id);
  const [idError, setIdError] = useState<string | undefined>();
  const commitId = () => {
    if (idText === id) return setIdError(undefined);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(idText)) return setIdError("use letters, digits, - and _ (up to 64)");
    if (ids.includes(idText)) return setIdError(`there is already a node “${idText}”`);
    setIdError(undefined);
    onRename(idText);
  };
  const set = (part: Record<string, unknown>) => onChange({ ...node, ...part } as FlowNode);
  const text = (label: string, key: string, optional = false) => (
    <TextAreaField
      label={optional ? `${label} (optional)` : label}
      name={`${at}.${key}`}
      rows={2}
      value={((node as Record<string, unknown>)[key] as string | undefined) ?? ""}
      error={errors[`${at}.${key}`]}
      onInput={(e) => set({ [key]: optional && !e.currentTarget.value ? undefined : e.currentTarget.value })}
    />
  );
  const next = (label: string, key: string, optional = false, name = `${at}.${key}`, value = (node as Record<string, unknown>)[key] as string | undefined, update = (v: string | undefined) => set({ [key]: v })) => (
    <SelectField
      label={label}
      name={name}
      value={value ?? ""}
      error={errors[name]}
      onChange={(v) => update(v || undefined)}
      options={[...(optional ? [{ value: "", label: "— none —" }] : []), ...(value && !ids.includes(value) ? [{ value, label: `${value} (missing)` }] : []), ...ids.map((v) => ({ value: v, label: v }))]}
    />
  );
  return (
    <fieldset class="agents-node">
      <legend>Node {id}</legend>
      <div class="agents-grid">
        <Field label="Node id" name={`${at}.id`} value={idText} error={idError} onInput={(e) => setIdText(e.currentTarget.value)} hint="Renaming updates the steps that lead here." />
        <SelectField label="Type" name={`${at}.type`} value={node.type} onChange={(type) => onChange(retype(node, type as NodeType, ids[0], tools))} options={NODE_TYPES} />
      </div>
      {idText !== id && !idError && (
        <button type="button" class="button secondary agents-inline" onClick={commitId}>
          Rename to “{idText}”
        </button>
      )}
      {node.type === "say" && (
        <>
          {text("Text", "text")}
          {next("Next", "next")}
        </>
      )}
      {node.type === "ask" && <AskFields node={node} at={at} errors={errors} set={set} text={text} next={next} />}
      {node.type === "branch" && (
        <>
          {node.cases.map((c, i) => {
            const setCase = (part: Partial<Condition>) => set({ cases: node.cases.map((each, j) => (j === i ? { ...each, ...part } : each)) });
            return (
              <div class="agents-subrow" key={i}>
                <Field label={`Case ${i + 1}: slot`} name={`${at}.cases[${i}].slot`} value={c.slot} error={errors[`${at}.cases[${i}].slot`]} onInput={(e) => setCase({ slot: e.currentTarget.value })} />
                <SelectField label="Test" name={`${at}.cases[${i}].op`} value={c.op} onChange={(op) => setCase({ op: op as Condition["op"], value: conditionValue(op, valueText(c.value)) })} options={OPS} />
                {c.op !== "exists" && c.op !== "missing" && (
                  <Field label="Value" name={`${at}.cases[${i}].value`} value={valueText(c.value)} error={errors[`${at}.cases[${i}].value`]} onInput={(e) => setCase({ value: conditionValue(c.op, e.currentTarget.value) })} />
                )}
                {next("Then", "", false, `${at}.cases[${i}].next`, c.next, (v) => setCase({ next: v ?? "" }))}
                <DangerButton label={`Remove case ${i + 1} of ${id}`} disabled={node.cases.length < 2} onClick={() => set({ cases: node.cases.filter((_, j) => j !== i) })}>Remove</DangerButton>
              </div>
            );
          })}
          <button type="button" class="button secondary agents-inline" onClick={() => set({ cases: [...node.cases, { slot: "", op: "eq", value: "", next: ids[0] }] })}>
            Add case
          </button>
          {next("Otherwise", "default")}
        </>
      )}
      {node.type === "route" && (
        <>
          {text("Prompt", "text", true)}
          {node.routes.map((r, i) => (
            <div class="agents-subrow" key={i}>
              <ListField
                label={`Route ${i + 1}: keywords`}
                name={`${at}.routes[${i}].keywords`}
                hint="Comma-separated"
                value={r.keywords}
                errors={errors}
                onChange={(keywords) => set({ routes: node.routes.map((each, j) => (j === i ? { ...each, keywords } : each)) })}
              />
              {next("Then", "", false, `${at}.routes[${i}].next`, r.next, (v) => set({ routes: node.routes.map((each, j) => (j === i ? { ...each, next: v ?? "" } : each)) }))}
              <DangerButton label={`Remove route ${i + 1} of ${id}`} disabled={node.routes.length < 2} onClick={() => set({ routes: node.routes.filter((_, j) => j !== i) })}>Remove</DangerButton>
            </div>
          ))}
          <button type="button" class="button secondary agents-inline" onClick={() => set({ routes: [...node.routes, { keywords: [], next: ids[0] }] })}>
            Add route
          </button>
          {next("Otherwise", "default")}
        </>
      )}
      {node.type === "answer" && (
        <>
          {text("Prompt", "text", true)}
          {text("Fallback when nothing is found", "fallback")}
          <NodeKnowledgeBases at={at} id={id} value={node.knowledge_base_ids} knowledgeBases={knowledgeBases} errors={errors} onChange={(knowledge_base_ids) => set({ knowledge_base_ids })} />
          <NumberField label="Minimum score (0–1, optional)" name={`${at}.min_score`} min={0} max={1} step="any" value={node.min_score} errors={errors} onChange={(min_score) => set({ min_score })} />
          {next("Next", "next")}
        </>
      )}
      {node.type === "tool" && (
        <>
          <SelectField
            label="Tool"
            name={`${at}.tool_id`}
            value={node.tool_id}
            error={errors[`${at}.tool_id`]}
            onChange={(tool_id) => set({ tool_id })}
            options={[...(tools.some((t) => t.id === node.tool_id) ? [] : [{ value: node.tool_id, label: node.tool_id || "— choose a tool —" }]), ...tools.map((t) => ({ value: t.id, label: t.name }))]}
          />
          <ArgumentsField at={at} value={node.arguments} errors={errors} onChange={(args) => set({ arguments: args })} />
          <Field label="Save the result as slot (optional)" name={`${at}.save_as`} value={node.save_as ?? ""} error={errors[`${at}.save_as`]} onInput={(e) => set({ save_as: e.currentTarget.value || undefined })} />
          {text("Said after the call", "text", true)}
          {next("Next", "next")}
          {next("On error", "on_error", true)}
        </>
      )}
      {node.type === "transfer" && (
        <>
          {text("Said before transferring", "text", true)}
          <Field label="Number (optional)" name={`${at}.number`} hint="E.164 or SIP URI; empty: the agent's transfer number." value={node.number ?? ""} error={errors[`${at}.number`]} onInput={(e) => set({ number: e.currentTarget.value || undefined })} />
        </>
      )}
      {node.type === "end" && text("Said before hanging up", "text", true)}
      {onRemove && (
        <div class="actions">
          <DangerButton label={`Remove node ${id}`} onClick={onRemove}>Remove node</DangerButton>
        </div>
      )}
    </fieldset>
  );
}

type TextFn = (label: string, key: string, optional?: boolean) => preact.JSX.Element;
type NextFn = (label: string, key: string, optional?: boolean) => preact.JSX.Element;

function AskFields({ node, at, errors, set, text, next }: { node: Ask; at: string; errors: Errors; set: (part: Record<string, unknown>) => void; text: TextFn; next: NextFn }) {
  const setSlot = (part: Partial<Ask["slot"]>) => set({ slot: { ...node.slot, ...part } });
  return (
    <>
      {text("Question", "text")}
      <div class="agents-grid">
        <Field label="Slot name" name={`${at}.slot.name`} hint="Later text can say {{name}}." value={node.slot.name} error={errors[`${at}.slot.name`]} onInput={(e) => setSlot({ name: e.currentTarget.value })} />
        <SelectField label="Slot type" name={`${at}.slot.type`} value={node.slot.type} error={errors[`${at}.slot.type`]} onChange={(type) => setSlot({ type: type as Ask["slot"]["type"] })} options={SLOT_TYPES} />
      </div>
      {node.slot.type === "enum" && <ListField label="Allowed values" name={`${at}.slot.options`} hint="Comma-separated" value={node.slot.options ?? []} errors={errors} onChange={(options) => setSlot({ options: options.length ? options : undefined })} />}
      {node.slot.type === "digits" && <NumberField label="How many digits" name={`${at}.slot.length`} min={1} max={32} value={node.slot.length} errors={errors} onChange={(length) => setSlot({ length })} />}
      {text("Reprompt", "reprompt", true)}
      <NumberField label="Attempts before giving up (optional)" name={`${at}.max_attempts`} min={1} max={10} value={node.max_attempts} errors={errors} onChange={(max_attempts) => set({ max_attempts })} />
      {next("Next", "next")}
      {next("On failure", "on_failure", true)}
    </>
  );
}

/** A tool node's arguments as `name = value` lines ({{slot}} templates allowed in values). */
function ArgumentsField({ at, value, errors, onChange }: { at: string; value: Record<string, string> | undefined; errors: Errors; onChange: (value: Record<string, string> | undefined) => void }) {
  const [text, setText] = useState(Object.entries(value ?? {}).map(([k, v]) => `${k} = ${v}`).join("\n"));
  const input = (next: string) => {
    setText(next);
    const pairs = next.split("\n").map((line) => /^\s*([^=]+?)\s*=\s*(.*)$/.exec(line)).filter((m): m is RegExpExecArray => !!m);
    onChange(pairs.length ? Object.fromEntries(pairs.map((m) => [m[1], m[2]])) : undefined);
  };
  return <TextAreaField label="Arguments (optional)" name={`${at}.arguments`} rows={2} hint="One a line: name = value; values may use {{slot}}." value={text} error={errorUnder(errors, `${at}.arguments`)} onInput={(e) => input(e.currentTarget.value)} />;
}

/** An answer node's own knowledge bases; none chosen means the agent's. */
function NodeKnowledgeBases({ at, id, value = [], knowledgeBases, errors, onChange }: { at: string; id: string; value?: string[]; knowledgeBases: KnowledgeBase[]; errors: Errors; onChange: (value: string[] | undefined) => void }) {
  const name = `${at}.knowledge_base_ids`;
  const error = errorUnder(errors, name);
  // Ids the workspace no longer has stay listed, so they can be unticked.
  const known = [...knowledgeBases.map((kb) => ({ id: kb.id, name: kb.name })), ...value.filter((kbId) => !knowledgeBases.some((kb) => kb.id === kbId)).map((kbId) => ({ id: kbId, name: `${kbId} (missing)` }))];
  const toggle = (kbId: string, on: boolean) => {
    const next = on ? [...value, kbId] : value.filter((each) => each !== kbId);
    onChange(next.length ? next : undefined);
  };
  return (
    <fieldset class="agents-checks agents-node-kbs">
      <legend>Knowledge bases of node {id}</legend>
      <p class="hint">None ticked: the agent's knowledge bases.</p>
      {known.map((kb) => (
        <Check key={kb.id} name={`${name}.${kb.id}`} checked={value.includes(kb.id)} onChange={(on) => toggle(kb.id, on)}>
          {kb.name}
        </Check>
      ))}
      {known.length === 0 && <p class="hint">No knowledge bases yet.</p>}
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
