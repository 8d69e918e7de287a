import { PAGES } from "../../paths.ts";
import { useLocation } from "../../lib/router.ts";
import { TabLinks } from "../../ui/tab-links.tsx";

/** Billing and usage: two pages of the same wallet. */
export function WalletTabs() {
  const { path } = useLocation();
  return (
    <TabLinks
      label="Wallet"
      current={path}
      tabs={[
        { path: PAGES.billing, label: "Balance and payments" },
        { path: PAGES.usage, label: "Usage" },
      ]}
    />
  );
}
