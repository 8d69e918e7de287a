import type { AppContext } from "../core/context.ts";
import { checkUrlShape, OutboundRefused } from "../net/outbound.ts";
import { invalid } from "./errors.ts";

/** A URL the server will call (webhook, tool, endpoint), checked as the request gives it: 422 on `field` when refused. */
export function checkOutboundUrlField(ctx: AppContext, field: string, url: string): string {
  try {
    return checkUrlShape(url, { allowPrivate: ctx.config.allowPrivateUrls }).toString();
  } catch (error) {
    if (error instanceof OutboundRefused) throw invalid(field, error.message);
    throw error;
  }
}
