// Sub-pages of one screen as a row of links (each tab has its own URL, so it can be linked and reloaded).
// On a narrow screen the row scrolls sideways, and the current tab is scrolled into sight.
import { useEffect, useRef } from "preact/hooks";
import { Link } from "./link.tsx";

export interface TabLink {
  path: string;
  label: string;
}

export function TabLinks({ label, tabs, current }: { label: string; tabs: TabLink[]; current: string }) {
  const row = useRef<HTMLElement>(null);
  useEffect(() => {
    const bar = row.current;
    const active = bar?.querySelector('[aria-current="page"]');
    if (!bar || !active) return;
    // Only the row moves (scrollIntoView would scroll the page too).
    const [outer, inner] = [bar.getBoundingClientRect(), active.getBoundingClientRect()];
    if (inner.left < outer.left) bar.scrollLeft -= outer.left - inner.left;
    else if (inner.right > outer.right) bar.scrollLeft += inner.right - outer.right;
  }, [current]);
  return (
    <nav class="tab-links" aria-label={label} ref={row}>
      {tabs.map((tab) => (
        <Link key={tab.path} href={tab.path} class="tab-link" aria-current={tab.path === current ? "page" : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
