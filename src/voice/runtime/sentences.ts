/**
 * Cuts streaming text into speakable pieces: a sentence goes to TTS as soon as it is complete, so
 * the agent starts talking while the model is still writing the rest.
 */
export class SentenceSplitter {
  private buffer = "";

  /** Adds text; returns the sentences it completed. */
  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    for (;;) {
      const end = boundary(this.buffer);
      if (end < 0) break;
      const sentence = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end);
      if (sentence) out.push(sentence);
    }
    return out;
  }

  /** Whatever is left when the text is complete. */
  flush(): string[] {
    const rest = this.buffer.trim();
    this.buffer = "";
    return rest ? [rest] : [];
  }
}

const ABBREVIATIONS = /\b(?:mr|mrs|ms|dr|st|no|vs|etc|e\.g|i\.e|approx|tel|ext)\.$/i;

/** Index just after the first sentence end (punctuation followed by space), or -1. */
function boundary(text: string): number {
  const pattern = /[.!?…]+["')\]]?(?=\s)|\n+/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const end = match.index + match[0].length;
    const before = text.slice(0, end);
    if (match[0].startsWith(".") && (ABBREVIATIONS.test(before) || /\d\.$/.test(before) && /^\s*\d/.test(text.slice(end)))) continue;
    // Very short fragments ("Hi.") wait for more, so the voice does not stutter.
    if (before.trim().length < 6 && !match[0].includes("\n")) continue;
    return end;
  }
  return -1;
}
