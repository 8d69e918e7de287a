// The brand of the domain the page is on: name, logo, colours (as CSS custom properties) and the
// reseller's custom CSS, applied through the CSSOM so the page's CSP (no inline style) holds.
import { useEffect, useState } from "preact/hooks";
import type { Branding } from "../../sdk/ts/src/index.ts";
import { session } from "./session.ts";

export interface Brand {
  name: string;
  logoUrl: string | null;
  /** On a reseller's custom domain; the instance's own address otherwise (where the operator console is). */
  resellerDomain: boolean;
}

let brand: Brand = { name: document.title || "Parley", logoUrl: null, resellerDomain: false };
const listeners = new Set<(brand: Brand) => void>();

export function applyBranding(branding: Branding): void {
  const style = document.documentElement.style;
  style.setProperty("--brand-primary", branding.colors.primary);
  style.setProperty("--brand-accent", branding.colors.accent);
  style.setProperty("--brand-background", branding.colors.background);
  style.setProperty("--brand-text", branding.colors.text);
  if (branding.custom_css) {
    // A constructed sheet is CSSOM, which style-src does not govern; the server already sanitised the CSS.
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(branding.custom_css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  brand = { name: branding.product_name, logoUrl: sameOriginLogo(branding.logo_url), resellerDomain: branding.source === "domain" };
  for (const listener of listeners) listener(brand);
}

/**
 * An uploaded logo is served by this same instance: its path is read from the page's own origin (the
 * API names it on the domain's https address, which a proxy or a test may not be serving the page on).
 */
function sameOriginLogo(url: string | null): string | null {
  if (!url) return null;
  const parsed = new URL(url, location.href);
  return parsed.pathname.startsWith("/v1/branding/logos/") ? parsed.pathname : url;
}

/** Loads and applies the brand; the page keeps the instance's look when it cannot. */
export async function loadBranding(): Promise<void> {
  try {
    applyBranding(await session.client.branding.get(location.hostname));
  } catch {
    // The brand is decoration: without it the dashboard still works.
  }
}

export function useBrand(): Brand {
  const [value, setValue] = useState(brand);
  useEffect(() => {
    listeners.add(setValue);
    setValue(brand);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}
