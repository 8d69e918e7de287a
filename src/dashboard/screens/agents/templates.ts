// Starting configurations for a new agent. The API has no templates of its own: these only fill the
// create request, and everything they set can be changed afterwards on the agent's settings.
import type { AgentCreate, Provider } from "../../../sdk/ts/src/index.ts";

export interface AgentTemplate {
  id: string;
  label: string;
  description: string;
  /** The create request without its name; `llm` is the first language-model connection, if any. */
  config(llm: Provider | undefined): Omit<AgentCreate, "name">;
}

export const TEMPLATES: AgentTemplate[] = [
  {
    id: "receptionist",
    label: "Receptionist (flow)",
    description: "Greets callers, tells them the opening hours, answers questions from your knowledge bases and says goodbye. Needs no language model.",
    config: () => ({
      first_message: "Thank you for calling. Would you like our opening hours, or do you have a question?",
      brain: {
        type: "flow",
        flow: {
          start: "menu",
          nodes: {
            menu: { type: "route", routes: [{ keywords: ["hours", "open", "opening"], next: "hours" }, { keywords: ["question", "help"], next: "question" }, { keywords: ["bye", "nothing", "no"], next: "goodbye" }], default: "question" },
            hours: { type: "say", text: "We are open nine to six, Monday to Friday.", next: "more" },
            question: { type: "answer", text: "What would you like to know?", fallback: "I'm sorry, I don't have an answer to that.", next: "more" },
            more: { type: "route", text: "Is there anything else?", routes: [{ keywords: ["no", "nothing", "bye"], next: "goodbye" }, { keywords: ["hours", "open"], next: "hours" }], default: "question" },
            goodbye: { type: "end", text: "Thank you for calling. Goodbye!" },
          },
        },
      },
    }),
  },
  {
    id: "assistant",
    label: "LLM assistant",
    description: "A language model with a system prompt, your knowledge bases and the end-call tool. Needs an OpenAI-compatible provider connection.",
    config: (llm) => ({
      first_message: "Hi! How can I help you today?",
      system_prompt: "You are a friendly, concise phone assistant for {{company}}. Answer in one or two short sentences. When the caller is done, say goodbye and end the call.",
      brain: { type: "llm", provider_id: llm?.id ?? "", model: String(llm?.settings.chat_model ?? "gpt-4o-mini"), temperature: 0.7, max_tokens: 400 },
      tools: [{ type: "end_call" }, { type: "knowledge_search" }],
    }),
  },
  {
    id: "booker",
    label: "Appointment booker (flow)",
    description: "Asks the caller's name and a preferred date, confirms, and records both in the call's extracted fields.",
    config: () => ({
      first_message: "Hello, I can book an appointment for you.",
      brain: {
        type: "flow",
        flow: {
          start: "name",
          nodes: {
            name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "date" },
            date: { type: "ask", text: "Which day would suit you, {{name}}?", slot: { name: "date", type: "date" }, reprompt: "Sorry, which day was that?", next: "confirm" },
            confirm: { type: "ask", text: "So that is {{date}}. Shall I book it?", slot: { name: "confirmed", type: "boolean" }, next: "check" },
            check: { type: "branch", cases: [{ slot: "confirmed", op: "eq", value: true, next: "booked" }], default: "date" },
            booked: { type: "end", text: "You are booked for {{date}}, {{name}}. Goodbye!" },
          },
        },
      },
      extraction: [
        { name: "caller_name", type: "string", description: "The caller's name" },
        { name: "appointment_date", type: "string", description: "The day the caller booked" },
      ],
    }),
  },
  {
    id: "blank",
    label: "Blank",
    description: "The server's defaults: a flow that answers questions from the agent's knowledge bases.",
    config: () => ({}),
  },
];
