import type { ToolCallResult } from "../../../voice/brains/services.ts";

/**
 * The tool answers a test case gives instead of calling the tools' URLs, by call and tool id. The
 * composition root's BrainServices.invokeTool asks here first (flows and models both call tools
 * through it); the call's timeline still records each invocation with its arguments. The test call
 * runs in this process (its leg is in-process), so a process-wide map is where its brain looks.
 */
const mocks = new Map<string, Map<string, ToolCallResult>>();

export function mockToolsOfCall(callId: string, answers: { toolId: string; ok: boolean; result: unknown }[]): void {
  if (!answers.length) return;
  mocks.set(callId, new Map(answers.map((answer) => [answer.toolId, { ok: answer.ok, result: answer.result }])));
}

/** The case's answer for this tool on this call, or null: call the tool for real. */
export function mockedToolAnswer(callId: string | null, toolId: string): ToolCallResult | null {
  return (callId && mocks.get(callId)?.get(toolId)) || null;
}

export function forgetToolMocks(callId: string): void {
  mocks.delete(callId);
}
