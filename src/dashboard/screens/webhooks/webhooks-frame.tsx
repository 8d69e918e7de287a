// The webhooks screens (settings → webhooks): endpoints, delivery attempts, failed deliveries (dead
// letters) and the event log, each a tab with its own URL.
import type { ComponentChildren } from "preact";
import { PAGES } from "../../paths.ts";
import { PageHeader } from "../../ui/page-header.tsx";
import { TabLinks } from "../../ui/tab-links.tsx";

const TABS = [
  { path: PAGES.webhooks, label: "Endpoints" },
  { path: PAGES.webhookDeliveries, label: "Deliveries" },
  { path: PAGES.webhooksFailed, label: "Failed" },
  { path: PAGES.webhookEvents, label: "Events" },
];

export function WebhooksFrame({ current, actions, children }: { current: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <>
      <PageHeader title="Webhooks" description="Your servers hear about call outcomes, finished campaigns and payments as signed HTTPS requests, retried for a day before they count as failed.">
        {actions}
      </PageHeader>
      <TabLinks label="Webhooks" tabs={TABS} current={current} />
      {children}
    </>
  );
}
