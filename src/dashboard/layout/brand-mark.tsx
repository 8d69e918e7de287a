// The product's logo and name, as the domain's brand has them.
import { useBrand } from "../lib/branding.ts";

export function BrandMark() {
  const brand = useBrand();
  return (
    <span class="brand-mark">
      {brand.logoUrl ? <img src={brand.logoUrl} alt="" class="brand-logo" /> : <span class="brand-initial" aria-hidden="true">{brand.name.slice(0, 1)}</span>}
      <span class="brand-name">{brand.name}</span>
    </span>
  );
}
