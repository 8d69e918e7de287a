// The built dashboard carried inside dist/parley: scripts/build.ts replaces this module with the bundle it
// builds. From source it stays null and the dashboard is built in memory on first use (build.ts).
import type { DashboardBuild } from "./build.ts";

export const EMBEDDED_DASHBOARD: DashboardBuild | null = null;
