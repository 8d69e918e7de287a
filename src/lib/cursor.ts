// Opaque list cursors: the (created_at, id) of the last row a page returned.
export interface CursorPosition {
  at: number;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString("base64url");
}

/** Returns null for anything that is not a cursor this server produced. */
export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && Number.isInteger(value[0]) && typeof value[1] === "string") {
      return { at: value[0], id: value[1] };
    }
  } catch {
    // fall through: malformed
  }
  return null;
}
