// The dashboard's entry: theme first (no flash), then the brand and the session, then the app.
import { render } from "preact";
import { App } from "./app.tsx";
import { loadBranding } from "./lib/branding.ts";
import { session } from "./lib/session.ts";
import { applyTheme } from "./lib/theme.ts";

applyTheme();
void loadBranding();
void session.load();
render(<App />, document.getElementById("app")!);
