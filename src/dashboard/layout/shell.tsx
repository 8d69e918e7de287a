// The signed-in frame, after PocketBase's admin UI: a sidebar of sections, a top bar with the workspace,
// the theme and the account, and the screen. Under 720 px the sidebar becomes a bar above the screen.
import type { ComponentChildren } from "preact";
import { navigate } from "../lib/router.ts";
import { session, type SessionState } from "../lib/session.ts";
import { PAGES } from "../paths.ts";
import { Link } from "../ui/link.tsx";
import { BrandMark } from "./brand-mark.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";
import { WorkspaceSwitcher } from "./workspace-switcher.tsx";

const SECTIONS = [
  { path: PAGES.apiKeys, label: "API keys", icon: "M14 7a4 4 0 1 1-3.9 4.9L3 19v2h3v-2h2v-2h2l1.1-1.1A4 4 0 0 1 14 7z" },
  { path: PAGES.auditLog, label: "Audit log", icon: "M4 5h16M4 10h16M4 15h10M4 20h7" },
  { path: PAGES.sessions, label: "Sessions", icon: "M3 5h18v11H3zM8 20h8M12 16v4" },
];

export function Shell({ state, path, children }: { state: SessionState; path: string; children: ComponentChildren }) {
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
            {SECTIONS.map((section) => (
              <li key={section.path}>
                <Link href={section.path} class="nav-link" aria-current={path === section.path ? "page" : undefined}>
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
