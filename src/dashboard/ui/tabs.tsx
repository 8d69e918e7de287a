// Tabs after the WAI-ARIA pattern: a tablist whose arrow keys, Home and End move between tabs (only the
// current one is in the Tab order), and the panel of the current tab. The caller keeps which is current.
// For sub-pages that each have a URL, ui/tab-links.tsx is the simpler choice.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

export interface TabItem {
  id: string;
  label: string;
}

export function Tabs({ label, tabs, current, onSelect, children }: { label: string; tabs: TabItem[]; current: string; onSelect: (id: string) => void; children: ComponentChildren }) {
  const base = useId();
  const index = Math.max(0, tabs.findIndex((tab) => tab.id === current));
  const keys = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
    onSelect(next.id);
    requestAnimationFrame(() => document.getElementById(`${base}-tab-${next.id}`)?.focus());
  };
  return (
    <>
      <div class="tabs" role="tablist" aria-label={label} onKeyDown={keys}>
        {tabs.map((tab, i) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${base}-tab-${tab.id}`}
            class="tab"
            aria-selected={i === index ? "true" : "false"}
            aria-controls={`${base}-panel`}
            tabIndex={i === index ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div class="tab-panel" role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${tabs[index].id}`}>
        {children}
      </div>
    </>
  );
}
