import type { AppContext } from "../../../core/context.ts";
import { StripeClient } from "./stripe-client.ts";

/** The instance's Stripe account, or null where the operator configured none (top-ups are offline). */
export function stripeOf(ctx: AppContext): StripeClient | null {
  const { stripeSecretKey, stripeApiUrl } = ctx.config;
  return stripeSecretKey ? new StripeClient({ secretKey: stripeSecretKey, apiUrl: stripeApiUrl }) : null;
}

/** What Stripe's metadata carries back to us on every object of a top-up. */
export function stripeMetadata(payment: { id: string; workspaceId: string }) {
  return { payment_id: payment.id, workspace_id: payment.workspaceId };
}
