// SQLite-flavoured SQL, as drizzle's SQLite dialect and our own statements write it, said in
// PostgreSQL. This is the one place the two dialects' differences in statements live: placeholders,
// and the handful of functions the code uses that PostgreSQL names or types differently. Each
// statement text is translated once (statement caches keep the result).

type Rule = (args: string[]) => string;

/** SQLite function → PostgreSQL, by the arguments' text (already translated). */
const FUNCTIONS: Record<string, Rule | undefined> = {
  // SQLite's two-argument max/min are scalar; PostgreSQL names those greatest/least.
  max: (args) => (args.length > 1 ? `greatest(${args.join(", ")})` : `max(${args[0]})`),
  min: (args) => (args.length > 1 ? `least(${args.join(", ")})` : `min(${args[0]})`),
  // sum of bigint is numeric in PostgreSQL (a string to the driver); SQLite's is an integer. Money is bigint.
  sum: (args) => `(sum(${args.join(", ")}))::bigint`,
  avg: (args) => `(avg(${args.join(", ")}))::float8`,
  instr: (args) => `strpos(${args.join(", ")})`,
  ifnull: (args) => `coalesce(${args.join(", ")})`,
  json: ([value]) => `(${value})::jsonb`,
  json_extract: ([value, path]) => `jsonb_extract_path((${value})::jsonb, ${jsonPath(path)})`,
  json_set: ([value, path, item]) => `jsonb_set((${value})::jsonb, '{${jsonPath(path).replace(/'/g, "")}}', to_jsonb(${item}))`,
  // json_insert(array, '$[#]', item) appends; the column stays text like SQLite's JSON.
  json_insert: ([value, path, item]) => {
    if (path.trim() !== "'$[#]'") throw new Error(`json_insert path ${path} is not translated`);
    return `((${value})::jsonb || jsonb_build_array(${item}))::text`;
  },
  strftime: ([format, value, modifier]) => {
    if (format.trim() !== "'%Y-%m-%d'" || modifier?.trim() !== "'unixepoch'") throw new Error(`strftime(${format}, …) is not translated`);
    return `to_char(to_timestamp(${value}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  },
};

/** '$.a.b' → 'a', 'b' */
function jsonPath(path: string): string {
  const match = /^'\$((?:\.[A-Za-z_][A-Za-z0-9_]*)+)'$/.exec(path.trim());
  if (!match) throw new Error(`JSON path ${path} is not translated`);
  return match[1].slice(1).split(".").map((key) => `'${key}'`).join(", ");
}

const CAST_TYPES: Record<string, string> = { integer: "bigint", real: "double precision", blob: "bytea" };

interface Cursor {
  text: string;
  at: number;
  params: number;
}

/** Copies a quoted string, identifier or comment starting at `at`; returns its end. */
function skipQuoted(text: string, at: number): number {
  const quote = text[at];
  if (quote === "-" ) {
    const end = text.indexOf("\n", at);
    return end < 0 ? text.length : end;
  }
  if (quote === "/") {
    const end = text.indexOf("*/", at + 2);
    return end < 0 ? text.length : end + 2;
  }
  let i = at + 1;
  for (;;) {
    const next = text.indexOf(quote, i);
    if (next < 0) return text.length;
    if (text[next + 1] === quote) i = next + 2;
    else return next + 1;
  }
}

/** Translates until an unmatched `)` or `,` at depth 0 (when `inCall`), or the end. */
function translateSpan(cursor: Cursor, inCall: boolean): string {
  const { text } = cursor;
  let out = "";
  while (cursor.at < text.length) {
    const c = text[cursor.at];
    if (c === "'" || c === '"' || (c === "-" && text[cursor.at + 1] === "-") || (c === "/" && text[cursor.at + 1] === "*")) {
      const end = skipQuoted(text, cursor.at);
      out += text.slice(cursor.at, end);
      cursor.at = end;
    } else if (c === "?") {
      cursor.at++;
      while (cursor.at < text.length && /[0-9]/.test(text[cursor.at])) cursor.at++; // ?NNN is not used; numbered as they come
      out += `$${++cursor.params}`;
    } else if (inCall && (c === ")" || c === ",")) {
      return out;
    } else if (c === "(") {
      cursor.at++;
      out += `(${translateGroup(cursor)})`;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(cursor.at, cursor.at + 64))![0];
      cursor.at += word.length;
      let after = cursor.at;
      while (text[after] === " ") after++;
      const rule = FUNCTIONS[word.toLowerCase()];
      if (text[after] === "(" && (rule || word.toLowerCase() === "cast")) {
        cursor.at = after + 1;
        const args = callArguments(cursor);
        out += rule ? rule(args) : castOf(args);
      } else {
        out += word;
      }
    } else {
      out += c;
      cursor.at++;
    }
  }
  return out;
}

/** Inside parentheses: everything up to the matching `)`, which is consumed. */
function translateGroup(cursor: Cursor): string {
  let out = "";
  for (;;) {
    out += translateSpan(cursor, true);
    const c = cursor.text[cursor.at];
    cursor.at++;
    if (c === ")" || c === undefined) return out;
    out += c; // a comma inside a plain group (a row value, an IN list)
  }
}

function callArguments(cursor: Cursor): string[] {
  const args: string[] = [];
  for (;;) {
    args.push(translateSpan(cursor, true).trim());
    const c = cursor.text[cursor.at];
    cursor.at++;
    if (c === ")" || c === undefined) return args;
  }
}

function castOf([inner]: string[]): string {
  const match = /^(.*)\s+as\s+([a-z]+)$/is.exec(inner);
  if (!match) return `cast(${inner})`;
  return `cast(${match[1]} as ${CAST_TYPES[match[2].toLowerCase()] ?? match[2]})`;
}

/** drizzle's SQLite dialect names an upsert's conflict columns with their table ("t"."c"); PostgreSQL takes bare names there. */
const CONFLICT_TARGET = /\bon conflict \(([^)]*)\)/gi;

export function translate(sqlite: string): string {
  return translateSpan({ text: sqlite, at: 0, params: 0 }, false).replace(CONFLICT_TARGET, (_all, columns: string) => `on conflict (${columns.replace(/"[^"]+"\./g, "")})`);
}
