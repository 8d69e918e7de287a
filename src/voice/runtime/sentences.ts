/**
 * Cuts streaming text into speakable pieces: a sentence goes to TTS as soon as it is complete, so
 * the agent starts talking while the model is still writing the rest.
 */
export class SentenceSplitter {
  private buffer = "";
  /** The first piece may end at a clause ("Sure," before "I can help with that."): the caller hears the reply sooner. */
  private clauseFirst: boolean;

  constructor(options: { firstClause?: boolean } = {}) {
    this.clauseFirst = options.firstClause ?? false;
  }

  /** Adds text; returns the sentences it completed. */
  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    for (;;) {
      let end = boundary(this.buffer);
      if (this.clauseFirst) {
        const clause = clauseBoundary(this.buffer);
        if (clause >= 0 && (end < 0 || clause < end)) end = clause;
      }
      if (end < 0) break;
      this.clauseFirst = false;
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

/** Index just after a clause mark (, ; : —) followed by space, or -1. */
function clauseBoundary(text: string): number {
  const match = /[,;:\u2014]+(?=\s)/.exec(text);
  return match ? match.index + match[0].length : -1;
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
