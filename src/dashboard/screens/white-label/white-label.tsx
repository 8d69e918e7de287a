// White-label: the brand this workspace's customers see on its own domains (name, logo, colours,
// support address, custom CSS), previewed live as it is edited; and the domains, each proven by a DNS
// TXT record before it shows the brand.
import { useSession } from "../../lib/session.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PageHeader } from "../../ui/page-header.tsx";
import { LoadState } from "../../ui/status.tsx";
import { BrandForm } from "./brand-form.tsx";
import { Domains } from "./domains.tsx";

export function WhiteLabel() {
  const { workspaces, workspaceId } = useSession();
  const [brand, reload] = useLoad(() => session.client.whiteLabel.get(), []);
  const workspace = workspaces.find((w) => w.id === workspaceId);
  return (
    <>
      <PageHeader title="White-label" description={`Resell under your own brand: ${workspace?.name ?? "this workspace"}'s customers see your name, logo and colours on your domains.`} />
      <LoadState state={brand} label="Loading the brand…" onRetry={reload} />
      {brand.status === "ready" && (
        <>
          <BrandForm brand={brand.data} />
          <Domains initial={brand.data.domains} />
        </>
      )}
    </>
  );
}
