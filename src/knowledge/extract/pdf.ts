// PDF → text through unpdf, whose serverless pdf.js build runs the "worker" in-process and needs no
// files at run time, so it works inside the single executable.
import { extractText, getDocumentProxy, getMeta } from "unpdf";
import { UnreadableDocument } from "./formats.ts";

/** A form feed on its own line between pages, as pdftotext does; the chunker reads it as a paragraph break. */
export const PAGE_BREAK = "\n\f\n";

export async function pdfToText(bytes: Uint8Array): Promise<{ text: string; title?: string }> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (and may detach) the buffer it is given: hand it a copy.
    // A plain Uint8Array copy: pdf.js rejects Buffers and may take over the array it is given.
    pdf = await getDocumentProxy(Uint8Array.from(bytes), { verbosity: 0, stopAtErrors: false });
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === "PasswordException") throw new UnreadableDocument("The PDF is password-protected", { cause: error });
    throw new UnreadableDocument(`The PDF could not be read: ${(error as Error)?.message ?? error}`, { cause: error });
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const info = (await getMeta(pdf)).info as { Title?: unknown };
    const title = typeof info.Title === "string" && info.Title.trim() ? info.Title.trim() : undefined;
    return { text: text.map((page) => page.trim()).join(PAGE_BREAK), title };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
