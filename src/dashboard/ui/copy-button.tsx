// Copies a text to the clipboard and says so (to screen readers too).
import { useState } from "preact/hooks";

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("yes");
    } catch {
      setCopied("no");
    }
  };
  return (
    <>
      <button type="button" class="button secondary" onClick={copy}>
        {copied === "yes" ? "Copied" : label}
      </button>
      <span class="visually-hidden" role="status">
        {copied === "yes" ? "Copied to the clipboard" : copied === "no" ? "Could not copy: select the text and copy it yourself" : ""}
      </span>
    </>
  );
}
