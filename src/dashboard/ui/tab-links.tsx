// Sub-pages of one screen as a row of links (each tab has its own URL, so it can be linked and reloaded).
import { Link } from "./link.tsx";

export interface TabLink {
  path: string;
  label: string;
}

export function TabLinks({ label, tabs, current }: { label: string; tabs: TabLink[]; current: string }) {
  return (
    <nav class="tab-links" aria-label={label}>
      {tabs.map((tab) => (
        <Link key={tab.path} href={tab.path} class="tab-link" aria-current={tab.path === current ? "page" : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
