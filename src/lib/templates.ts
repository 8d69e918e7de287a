/** Fills `{{name}}` from the given scopes, first match wins; unknown names become empty. */
export function renderTemplate(text: string, ...scopes: Record<string, unknown>[]): string {
  return text.replace(/\{\{\s*([a-zA-Z_][a-zA-Z0-9_.]*)\s*\}\}/g, (_, name: string) => {
    for (const scope of scopes) {
      const value = name.split(".").reduce<unknown>((at, key) => (at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined), scope);
      if (value !== undefined && value !== null) return typeof value === "object" ? JSON.stringify(value) : String(value);
    }
    return "";
  });
}
