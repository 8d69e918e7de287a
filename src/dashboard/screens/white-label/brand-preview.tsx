// A small mock of the dashboard in the brand being edited: its colours go in as CSS custom properties
// through the CSSOM (the page's CSP refuses style attributes).
import { useEffect, useRef } from "preact/hooks";

export interface PreviewBrand {
  name: string;
  logo: string | null;
  colors: { primary: string; accent: string; background: string; text: string };
}

export function BrandPreview({ brand }: { brand: PreviewBrand }) {
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const style = frame.current!.style;
    for (const [key, value] of Object.entries(brand.colors)) style.setProperty(`--wl-${key}`, value);
  }, [brand.colors.primary, brand.colors.accent, brand.colors.background, brand.colors.text]);
  return (
    <section class="wl-preview-panel" aria-labelledby="wl-preview-title">
      <h2 id="wl-preview-title">Preview</h2>
      <p class="visually-hidden">A small mock of the dashboard in these colours, with the logo and name.</p>
      {/* Decoration for sighted people: the form holds the same choices in words. */}
      <div class="wl-preview" ref={frame} data-testid="brand-preview" aria-hidden="true">
        <div class="wl-preview-side">
          <div class="wl-preview-brand">
            {brand.logo ? <img class="wl-preview-logo" src={brand.logo} alt="" /> : <span class="wl-preview-initial">{brand.name.slice(0, 1).toUpperCase()}</span>}
            <span class="wl-preview-name">{brand.name}</span>
          </div>
          <span class="wl-preview-nav current">Agents</span>
          <span class="wl-preview-nav">Calls</span>
          <span class="wl-preview-nav">Billing</span>
        </div>
        <div class="wl-preview-main">
          <span class="wl-preview-heading">Agents</span>
          <span class="wl-preview-text">Your receptionist answered 12 calls today.</span>
          <span class="wl-preview-badge">Live</span>
          <span class="wl-preview-button">New agent</span>
        </div>
      </div>
    </section>
  );
}
