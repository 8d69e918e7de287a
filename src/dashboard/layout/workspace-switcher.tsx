// Which of the person's workspaces the dashboard acts in (sent as X-Workspace-Id by the library).
import { useId } from "preact/hooks";
import { session, type SessionState } from "../lib/session.ts";

export function WorkspaceSwitcher({ state }: { state: SessionState }) {
  const id = useId();
  return (
    <div class="workspace-switcher">
      <label for={id}>Workspace</label>
      <select id={id} value={state.workspaceId ?? ""} onChange={(e) => session.switchWorkspace(e.currentTarget.value)}>
        {state.workspaces.map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspace.name} ({workspace.role})
          </option>
        ))}
      </select>
    </div>
  );
}
