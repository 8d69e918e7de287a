// The operator's console is for the instance operator's own workspace; others see why it is empty.
import type { ComponentChildren } from "preact";
import { useSession } from "../../lib/session.ts";
import { PAGES } from "../../paths.ts";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty } from "../../ui/status.tsx";
import { TabLinks } from "../../ui/tab-links.tsx";

export function isOperatorWorkspace(state: { workspaces: { id: string; is_operator: boolean }[]; workspaceId: string | null }): boolean {
  return !!state.workspaces.find((w) => w.id === state.workspaceId)?.is_operator;
}

export function OperatorOnly({ title, description, path, children }: { title: string; description: string; path: string; children: ComponentChildren }) {
  const state = useSession();
  return (
    <>
      <PageHeader title={title} description={description} />
      {isOperatorWorkspace(state) ? (
        <>
          <TabLinks
            label="Operator console"
            current={path}
            tabs={[
              { path: PAGES.operator, label: "Tenants" },
              { path: PAGES.operatorPricing, label: "Pricing" },
            ]}
          />
          {children}
        </>
      ) : (
        <Empty title="For the instance operator">
          <p>The operator's console opens in the operator's own workspace. Switch to it, if you are one of its admins.</p>
        </Empty>
      )}
    </>
  );
}
