// What an error means for a form: a message and the fields its errors[] names, in words (error-wording.ts);
// the API's own code, words and request id stay for the "details" a person opens to report it.
import { APIConnectionError, APIError, APITimeoutError } from "../../sdk/ts/src/index.ts";
import { fieldErrorInWords, problemInWords } from "./error-wording.ts";

export interface Problem {
  message: string;
  /** Field name → what is wrong with it, in words. */
  fields: Record<string, string>;
  /** The API's error code (`email_taken`), for a screen that offers a way out of it; null when no server answered. */
  code?: string | null;
  /** The server's own words, shown only under "Details". */
  detail?: string | null;
  requestId: string | null;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof APIError) {
    const fields: Record<string, string> = {};
    for (const each of error.errors) fields[each.field] ??= fieldErrorInWords(each.field, each.message);
    const message = error.errors.length ? `Please check the ${error.errors.length === 1 ? "highlighted field" : "highlighted fields"}.` : problemInWords(error.code, error.detail || error.title);
    return { message, fields, code: error.code, detail: error.detail, requestId: error.requestId };
  }
  if (error instanceof APITimeoutError) return { message: "The server took too long to answer. Try again.", fields: {}, requestId: null };
  if (error instanceof APIConnectionError) return { message: "The server could not be reached. Check your connection and try again.", fields: {}, requestId: null };
  return { message: error instanceof Error ? error.message : String(error), fields: {}, requestId: null };
}
