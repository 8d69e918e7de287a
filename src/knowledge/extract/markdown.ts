// Markdown stays Markdown (the chunker reads its headings); only YAML front matter is metadata, not content.

export function markdownToText(markdown: string): { text: string; title?: string } {
  let text = markdown;
  let title: string | undefined;
  const frontMatter = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (frontMatter) {
    text = text.slice(frontMatter[0].length);
    const declared = /^title:[ \t]*(.+?)[ \t]*$/m.exec(frontMatter[1])?.[1];
    title = declared?.replace(/^(["'])(.*)\1$/, "$2") || undefined;
  }
  title ??= /^ {0,3}#[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1];
  return { text, title };
}
