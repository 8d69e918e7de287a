/** A file to send: its bytes (Blob/File, Uint8Array, ArrayBuffer) or its text. */
export type Uploadable = Blob | Uint8Array | ArrayBuffer | string;

export function isUploadable(value: unknown): value is Uploadable {
  return typeof value === "string" || value instanceof Uint8Array || value instanceof ArrayBuffer || (typeof Blob !== "undefined" && value instanceof Blob);
}

/** A multipart form with the file as its `file` part and every other field as text. */
export function formData(file: Uploadable, fields: Record<string, unknown> = {}, filename?: string, type = "application/octet-stream"): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    form.append(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  const blob = file instanceof Blob ? file : new Blob([file as string | ArrayBuffer], { type });
  const name = filename ?? (typeof File !== "undefined" && file instanceof File ? file.name : "upload");
  form.append("file", blob, name);
  return form;
}
