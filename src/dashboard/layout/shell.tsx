// The signed-in frame, after PocketBase's admin UI: a sidebar of sections, a top bar with the workspace,
// the theme and the account, and the screen. Under 720 px the sidebar becomes a bar above the screen.
import type { ComponentChildren } from "preact";
import { useBrand } from "../lib/branding.ts";
import { navigate } from "../lib/router.ts";
import { session, type SessionState } from "../lib/session.ts";
import { PAGES } from "../paths.ts";
import { Link } from "../ui/link.tsx";
import { BrandMark } from "./brand-mark.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";
import { WorkspaceSwitcher } from "./workspace-switcher.tsx";

const SECTIONS = [
  { path: PAGES.gettingStarted, label: "Getting started", icon: "M9 12l2 2 4-4M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0" },
  { path: PAGES.agents, label: "Agents", icon: "M12 3a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM4 21v-1a6 6 0 0 1 6-6h4a6 6 0 0 1 6 6v1M19 7h2M3 7h2" },
  { path: PAGES.calls, label: "Calls", icon: "M5 4h4l2 5-2.5 1.5a11 11 0 0 0 5 5L15 13l5 2v4a2 2 0 0 1-2 2A16 16 0 0 1 3 6a2 2 0 0 1 2-2" },
  { path: PAGES.knowledgeBases, label: "Knowledge", icon: "M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5zM4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5" },
  { path: PAGES.numbers, label: "Numbers", icon: "M4 9h16M4 15h16M10 3 8 21M16 3l-2 18" },
  { path: PAGES.carriers, label: "Carriers", icon: "M5 12a7 7 0 0 1 14 0M8.5 12a3.5 3.5 0 0 1 7 0M12 12v9" },
  { path: PAGES.campaigns, label: "Campaigns", icon: "M3 11v2h3l6 5V6L6 11zM16 8a5 5 0 0 1 0 8M19 5a9 9 0 0 1 0 14" },
  { path: PAGES.schedules, label: "Schedules", icon: "M12 7v5l3 3M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0" },
  { path: PAGES.webhooks, label: "Webhooks", icon: "M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" },
  { path: PAGES.billing, label: "Billing", icon: "M3 6h18v12H3zM3 10h18M7 15h4" },
  { path: PAGES.members, label: "Members", icon: "M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21v-1a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v1M16 3a4 4 0 0 1 0 8M19 14a6 6 0 0 1 3 5v2" },
  { path: PAGES.widgets, label: "Widgets", icon: "M4 4h16v12H8l-4 4zM8 9h8M8 12h5" },
  { path: PAGES.whiteLabel, label: "White-label", icon: "M12 3a9 9 0 1 0 0 18c1 0 2-1 2-2s-1-2 0-3 2 0 3 0a4 4 0 0 0 4-4 9 9 0 0 0-9-9zM7.5 11.5h.01M10.5 7.5h.01M15.5 8.5h.01" },
  { path: PAGES.operator, label: "Operator", icon: "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6zM9 12l2 2 4-4", operatorOnly: true },
  { path: PAGES.apiKeys, label: "API keys", icon: "M14 7a4 4 0 1 1-3.9 4.9L3 19v2h3v-2h2v-2h2l1.1-1.1A4 4 0 0 1 14 7z" },
  { path: PAGES.auditLog, label: "Audit log", icon: "M4 5h16M4 10h16M4 15h10M4 20h7" },
  { path: PAGES.sessions, label: "Sessions", icon: "M3 5h18v11H3zM8 20h8M12 16v4" },
];

/** The section a path is in: the longest section path it is or lies under (`/campaigns/cmp_1` is Campaigns). */
function sectionOf(path: string): string | undefined {
  const within = SECTIONS.filter((section) => path === section.path || path.startsWith(`${section.path}/`));
  return within.sort((a, b) => b.path.length - a.path.length)[0]?.path;
}

export function Shell({ state, path, children }: { state: SessionState; path: string; children: ComponentChildren }) {
  const current = sectionOf(path);
  const brand = useBrand();
  const signOut = async () => {
    await session.signOut().catch(() => undefined);
    navigate(PAGES.signIn);
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <Link class="sidebar-brand" href={PAGES.apiKeys}>
          <BrandMark />
        </Link>
        <nav aria-label="Sections">
          <ul>
            {/* The operator's console shows only in the instance operator's workspace, on the instance's own address. */}
            {SECTIONS.filter((section) => !section.operatorOnly || (!brand.resellerDomain && state.workspaces.find((w) => w.id === state.workspaceId)?.is_operator)).map((section) => (
              <li key={section.path}>
                <Link href={section.path} class="nav-link" aria-current={section.path === current ? "page" : undefined}>
                  <svg class="nav-icon" viewBox="0 0 24 24" aria-hidden="true">
                    <path d={section.icon} />
                  </svg>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <div class="content">
        <header class="topbar">
          <WorkspaceSwitcher state={state} />
          <div class="topbar-end">
            <ThemeToggle />
            <span class="account" title={state.user?.email}>{state.user?.email}</span>
            <button type="button" class="button secondary" onClick={signOut}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
