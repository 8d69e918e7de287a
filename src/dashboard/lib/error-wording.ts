// The API's errors as a person reads them. The API keeps its codes and its validator's messages
// (clients match on them); the dashboard says the same in words, once, for every form.

/** `[pattern, wording]`: the first pattern matching a field's message decides what the person reads. */
const FIELD_WORDING: [RegExp, (found: RegExpExecArray, field: string) => string][] = [
  [/^expected string length greater or equal to (\d+)$/, ([, n]) => (n === "1" ? "Fill this in." : `Use at least ${n} characters.`)],
  [/^expected string length less or equal to (\d+)$/, ([, n]) => `Use at most ${n} characters.`],
  [/^expected array length to be greater or equal to (\d+)$/, ([, n]) => (n === "1" ? "Choose at least one." : `Choose at least ${n}.`)],
  [/^expected array length to be less or equal to (\d+)$/, ([, n]) => `Choose at most ${n}.`],
  [/^expected (?:integer|number) to be greater or equal to (-?[\d.]+)$/, ([, n]) => `Enter ${n} or more.`],
  [/^expected (?:integer|number) to be greater than (-?[\d.]+)$/, ([, n]) => `Enter more than ${n}.`],
  [/^expected (?:integer|number) to be less or equal to (-?[\d.]+)$/, ([, n]) => `Enter ${n} or less.`],
  [/^expected (?:integer|number) to be less than (-?[\d.]+)$/, ([, n]) => `Enter less than ${n}.`],
  [/^expected integer$/, () => "Enter a whole number."],
  [/^expected number$/, () => "Enter a number."],
  [/^is required$/, () => "Fill this in."],
  [/^is already registered$/, () => "An account with this e-mail already exists."],
  [/^is already taken$/, () => "This is already taken: choose another."],
  [/^is invalid, already used or expired$/, () => "This link is invalid, already used or expired: ask for a new one."],
  [/^must match: E-mail address$/, () => "Enter an e-mail address, like name@example.com."],
  [/^must match: E\.164/, () => "Enter the number with + and its country code, like +14155550123."],
  [/^is not an absolute URL$/, () => "Enter a whole address, starting with https://."],
  [/^must be an http\(s\) URL$/, () => "Use an address starting with https:// (or http://)."],
  [/^must be one of: (.+)$/, ([, list]) => `Choose one of: ${list}.`],
  [/^must match: (.+)$/, ([, description]) => `Use this form: ${description}.`],
  [/^expected string to match/, (_, field) => PATTERN_WORDING[field] ?? "This is not in the form expected here."],
  [/is not a number of this workspace$/, () => "This is not one of this workspace's numbers."],
];

/** Fields whose pattern (a regular expression to the API) needs saying in words. */
const PATTERN_WORDING: Record<string, string> = {
  area_code: "Enter a 3-digit area code that does not start with 0 or 1, like 415.",
  contains: "Enter 1 to 10 digits.",
};

/** API hints written for programmers ("(POST /v1/…)", "`from`") mean nothing on a form. */
const withoutApiHints = (text: string) =>
  text
    .replace(/\s*\((?:GET|POST|PUT|PATCH|DELETE) [^)]*\)/g, "")
    .replace(/`([^`]*)`/g, "$1")
    .trim();

/** A sentence: capital first, full stop last. */
const sentence = (text: string) => {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
};

/** What a person reads under a field the API refused. */
export function fieldErrorInWords(field: string, message: string): string {
  for (const [pattern, wording] of FIELD_WORDING) {
    const found = pattern.exec(message);
    if (found) return wording(found, field);
  }
  const plain = withoutApiHints(message);
  // The API's predicates ("must be …", "is not …") have the field for subject: here it is "this".
  return sentence(/^(is|are|must|has|cannot|does)\b/.test(plain) ? `This ${plain}` : plain);
}

/** What a person reads for a refusal that names no field, by its code (the server's own words otherwise). */
const PROBLEM_WORDING: Record<string, string> = {
  invalid_credentials: "The e-mail or the password is not right.",
  email_taken: "An account with this e-mail already exists.",
  rate_limited: "Too many attempts in a short time. Wait a minute, then try again.",
  insufficient_funds: "Your balance does not cover this. Top up on Billing, then try again.",
  workspace_suspended: "This workspace is suspended: the operator of this service can tell you why.",
  forbidden: "Your role in this workspace does not allow this.",
  insufficient_scope: "Your role in this workspace does not allow this.",
  payment_provider_unavailable: "This service takes no card payments: ask for an invoice instead.",
  internal_error: "Something went wrong on the server. Try again; if it happens again, tell the operator (the details below help).",
  service_unavailable: "The service is not available just now. Try again in a moment.",
};

export function problemInWords(code: string, detail: string): string {
  return PROBLEM_WORDING[code] ?? sentence(withoutApiHints(detail));
}
