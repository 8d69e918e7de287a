// The frame of the pages shown to anyone: sign-in, sign-up, and the pages e-mail links open.
import type { ComponentChildren } from "preact";
import { BrandMark } from "./brand-mark.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";

export function PublicPage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="public">
      <header class="public-header">
        <BrandMark />
        <ThemeToggle />
      </header>
      <main id="main" class="card" tabIndex={-1}>
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}
