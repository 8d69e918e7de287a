// What an error means for a form: the problem's message, and the fields its errors[] names.
import { APIConnectionError, APIError, APITimeoutError } from "../../sdk/ts/src/index.ts";

export interface Problem {
  message: string;
  /** Field name → what is wrong with it. */
  fields: Record<string, string>;
  requestId: string | null;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof APIError) {
    const fields: Record<string, string> = {};
    for (const each of error.errors) fields[each.field] ??= each.message;
    const message = error.errors.length ? `Please check the ${error.errors.length === 1 ? "highlighted field" : "highlighted fields"}.` : error.detail || error.title;
    return { message, fields, requestId: error.requestId };
  }
  if (error instanceof APITimeoutError) return { message: "The server took too long to answer. Try again.", fields: {}, requestId: null };
  if (error instanceof APIConnectionError) return { message: "The server could not be reached. Check your connection and try again.", fields: {}, requestId: null };
  return { message: error instanceof Error ? error.message : String(error), fields: {}, requestId: null };
}
