// The signed-in person: one client of the API for the whole app, its tokens kept in localStorage (shared
// with other tabs through the library's token store), and the workspace it acts in.
import { useEffect, useState } from "preact/hooks";
import { AuthenticationError, Parley, type MeUser, type TokenPair, type TokenStore, type WorkspaceWithRole } from "../../sdk/ts/src/index.ts";

const TOKENS = "parley.session";
const WORKSPACE = "parley.workspace";

export interface SessionState {
  status: "loading" | "signed-out" | "signed-in";
  user: MeUser | null;
  workspaces: WorkspaceWithRole[];
  workspaceId: string | null;
}

const tokenStore: TokenStore = {
  get() {
    try {
      const pair = JSON.parse(localStorage.getItem(TOKENS) ?? "null") as TokenPair | null;
      return pair?.access_token && pair.refresh_token ? pair : null;
    } catch {
      return null;
    }
  },
  set(pair) {
    if (pair) localStorage.setItem(TOKENS, JSON.stringify({ access_token: pair.access_token, refresh_token: pair.refresh_token }));
    else localStorage.removeItem(TOKENS);
  },
};

export class Session {
  readonly client = new Parley({ baseUrl: location.origin, tokenStore, maxRetries: 1 });
  state: SessionState = { status: "loading", user: null, workspaces: [], workspaceId: null };
  private readonly listeners = new Set<(state: SessionState) => void>();

  constructor() {
    // Another tab signed out (or in): follow it.
    addEventListener("storage", (event) => {
      if (event.key === TOKENS) void this.load();
    });
  }

  subscribe(listener: (state: SessionState) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private set(state: Partial<SessionState>): void {
    this.state = { ...this.state, ...state };
    for (const listener of this.listeners) listener(this.state);
  }

  /** Reads who is signed in (nobody without stored tokens) and their workspaces. */
  async load(): Promise<void> {
    if (!tokenStore.get()) return this.set({ status: "signed-out", user: null, workspaces: [] });
    try {
      this.client.workspaceId = null;
      const [me, workspaces] = await Promise.all([this.client.auth.me(), this.client.workspaces.list({ limit: 100 })]);
      if (me.object !== "user") throw new Error("the dashboard signs in people, not API keys");
      const stored = localStorage.getItem(WORKSPACE);
      const workspaceId = workspaces.data.some((w) => w.id === stored) ? stored! : me.workspace.id;
      this.client.workspaceId = workspaceId;
      this.set({ status: "signed-in", user: me, workspaces: workspaces.data, workspaceId });
    } catch (error) {
      // A refused session is forgotten; an unreachable server leaves it stored for the next try.
      if (error instanceof AuthenticationError) this.forget();
      else this.set({ status: "signed-out", user: null, workspaces: [] });
    }
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.client.auth.login({ email, password });
    await this.load();
  }

  async signUp(input: { email: string; password: string; name?: string; workspace_name?: string }): Promise<void> {
    await this.client.auth.register(input);
    await this.load();
  }

  switchWorkspace(id: string): void {
    localStorage.setItem(WORKSPACE, id);
    this.client.workspaceId = id;
    this.set({ workspaceId: id });
  }

  /** Ends this browser's session on the server, and forgets it here whatever the server said. */
  async signOut(): Promise<void> {
    try {
      await this.client.auth.logout();
    } finally {
      this.forget();
    }
  }

  /** Forgets the session here (it ended, or the server no longer takes it). */
  forget(): void {
    tokenStore.set(null);
    localStorage.removeItem(WORKSPACE);
    this.client.workspaceId = null;
    this.set({ status: "signed-out", user: null, workspaces: [], workspaceId: null });
  }

  /** An error from a call: a session the server refuses is forgotten (the app then asks to sign in). */
  check(error: unknown): void {
    if (error instanceof AuthenticationError && this.state.status === "signed-in") this.forget();
  }
}

export const session = new Session();

export function useSession(): SessionState {
  const [state, setState] = useState(session.state);
  useEffect(() => {
    setState(session.state); // it may have changed between the render and this effect
    return session.subscribe(setState);
  }, []);
  return state;
}
