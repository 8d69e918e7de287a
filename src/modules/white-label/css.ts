// A reseller's custom CSS, made safe to inline into its tenants' pages: nothing left in it may run
// script, load anything from elsewhere or end the <style> element it is placed in.

/** Images a `url(data:…)` may carry: pictures only (SVG is a document). */
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif)[;,]/i;
/** `url(…)` with a quoted or bare argument, or one left open to the end of the sheet. */
const URL_FUNCTION = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"']*))\s*\)|url\([^)]*$/gi;
/** Functions whose strings are URLs (`image-set("https://…" 1x)`), and IE's script in a property. */
const LOADING_FUNCTIONS = /[\w-]*(?:image-set|image|src|cross-fade|element)\s*\(|expression\s*\(/i;
/** Declarations that bind behaviour to elements (IE's HTC files, Firefox's XBL). */
const BINDINGS = /(?:behavior|-moz-binding)\s*:[^;}]*;?|-moz-binding/gi;

/**
 * The sheet with every hazard removed, to a fixed point (removing one piece must not assemble another):
 * comments, `<` (so no `</style`), `@import`, `url()` other than data: images, URL-taking functions,
 * `expression(`, `javascript:`/`vbscript:`, `behavior:` and `-moz-binding`. Escaped letters are
 * decoded first, so `\65 xpression(` is caught like `expression(`.
 */
export function sanitizeCss(input: string): string {
  let css = input
    // Control characters are never needed, and NUL confuses parsers.
    .replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g, "")
    .replace(/</g, "");
  for (let pass = 0; pass < 20; pass++) {
    const next = stripOnce(decodeLetterEscapes(css));
    if (next === css) break;
    css = next;
  }
  return css.trim();
}

function stripOnce(css: string): string {
  return withoutCalls(css.replace(/\/\*[\s\S]*?(\*\/|$)/g, ""), LOADING_FUNCTIONS)
    .replace(/@import\b[^;]*;?|@import/gi, "")
    .replace(URL_FUNCTION, (whole, double?: string, single?: string, bare?: string) => {
      const target = (double ?? single ?? bare ?? "").trim();
      return DATA_IMAGE.test(target) && !/[\\]/.test(target) ? whole : "none";
    })
    .replace(/(?:java|vb)script\s*:/gi, "")
    .replace(BINDINGS, "");
}

/** Every call of a function `name` matches, arguments and all (to its closing parenthesis, or the end), replaced by `none`. */
function withoutCalls(css: string, name: RegExp): string {
  let out = "";
  let rest = css;
  for (let match = name.exec(rest); match; match = name.exec(rest)) {
    out += `${rest.slice(0, match.index)}none`;
    let depth = 1;
    let quote: string | null = null;
    let at = match.index + match[0].length;
    for (; at < rest.length && depth > 0; at++) {
      const char = rest[at];
      if (quote) {
        if (char === "\\") at++;
        else if (char === quote) quote = null;
      } else if (char === '"' || char === "'") quote = char;
      else if (char === "(") depth++;
      else if (char === ")") depth--;
    }
    rest = rest.slice(at);
  }
  return out + rest;
}

/**
 * `\75 rl(` is `url(` to a browser: escaped letters and hyphens become literal so the rules above see
 * them. Other escapes stay (an escaped `(` or `:` is part of a name, never syntax).
 */
function decodeLetterEscapes(css: string): string {
  return css.replace(/\\([0-9a-f]{1,6})[ \t\n\r\f]?|\\([a-z-])/gi, (whole, hex?: string, literal?: string) => {
    if (literal) return literal; // \a-\f start a hex escape, handled above
    const char = String.fromCodePoint(Math.min(Number.parseInt(hex!, 16), 0x10ffff));
    return /^[a-z-]$/i.test(char) ? char : whole;
  });
}
