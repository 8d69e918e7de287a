// The brand's settings, with a small mock of the dashboard beside them that shows the choices live.
import { useState } from "preact/hooks";
import type { WhiteLabel, WhiteLabelUpdate } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, TextAreaField } from "../../ui/field.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";
import { BrandPreview, type PreviewBrand } from "./brand-preview.tsx";

/** The instance's own colours: what a colour left unset shows. */
const DEFAULTS = { primary: "#1a56db", accent: "#0e9f6e", background: "#f4f5f7", text: "#16181d" };
const COLOR_LABELS: Record<keyof typeof DEFAULTS, string> = { primary: "Main colour", accent: "Accent", background: "Background", text: "Text" };
const LOGO_TYPES = "image/png,image/jpeg,image/webp,image/gif";

type NewLogo = { content_type: string; data_base64: string; dataUrl: string; name: string };

function readLogo(file: File): Promise<NewLogo> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const dataUrl = String(reader.result);
      resolve({ content_type: file.type, data_base64: dataUrl.slice(dataUrl.indexOf(",") + 1), dataUrl, name: file.name });
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export function BrandForm({ brand }: { brand: WhiteLabel }) {
  const [productName, setProductName] = useState(brand.product_name ?? "");
  const [colors, setColors] = useState({ ...DEFAULTS, ...brand.colors });
  const [supportEmail, setSupportEmail] = useState(brand.support_email ?? "");
  const [senderName, setSenderName] = useState(brand.email_sender_name ?? "");
  const [customCss, setCustomCss] = useState(brand.custom_css ?? "");
  const [slug, setSlug] = useState(brand.key_prefix_slug ?? "");
  const [logoUrl, setLogoUrl] = useState(brand.logo_url);
  const [newLogo, setNewLogo] = useState<NewLogo | null>(null);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const fields = action.problem?.fields ?? {};

  const pickLogo = async (event: { currentTarget: HTMLInputElement }) => {
    const file = event.currentTarget.files?.[0];
    if (file) setNewLogo(await readLogo(file));
  };
  const removeLogo = () => {
    setNewLogo(null);
    setLogoUrl(null);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const blank = (value: string) => value.trim() || null;
    const body: WhiteLabelUpdate = {
      product_name: blank(productName),
      colors,
      support_email: blank(supportEmail),
      email_sender_name: blank(senderName),
      custom_css: blank(customCss),
      ...(brand.key_prefixes_enabled ? { key_prefix_slug: blank(slug) } : {}),
      // A new upload, else the logo kept (an uploaded one by the URL the server gave), else none.
      ...(newLogo ? { logo: { content_type: newLogo.content_type, data_base64: newLogo.data_base64 } } : { logo_url: logoUrl }),
    };
    await action.run(async () => {
      const stored = await session.client.whiteLabel.set(body);
      setLogoUrl(stored.logo_url);
      setNewLogo(null);
      setCustomCss(stored.custom_css ?? "");
      setSaved(true);
    });
  };
  const preview: PreviewBrand = { name: productName.trim() || "Parley", logo: newLogo?.dataUrl ?? logoUrl, colors };
  return (
    <div class="wl-layout">
      <form class="panel wl-form" onSubmit={submit} noValidate aria-labelledby="brand-title">
        <h2 id="brand-title">Brand</h2>
        <ProblemNotice problem={action.problem} />
        {saved && <Success>Brand saved. Your verified domains show it from the next page load.</Success>}
        <Field label="Product name" name="product_name" hint="What your customers see instead of Parley." value={productName} error={fields.product_name} onInput={(e) => setProductName(e.currentTarget.value)} />
        <div class={fields.logo || fields.logo_url ? "field invalid" : "field"}>
          <label for="wl-logo">Logo</label>
          <input id="wl-logo" name="logo" type="file" accept={LOGO_TYPES} aria-describedby="wl-logo-hint" aria-invalid={fields.logo || fields.logo_url ? "true" : undefined} onChange={pickLogo} />
          <p class="hint" id="wl-logo-hint">
            PNG, JPEG, WebP or GIF, at most 256 KB. {newLogo ? `New: ${newLogo.name}.` : logoUrl ? "A logo is set." : "None: the name's initial is shown."}
          </p>
          {(fields.logo || fields.logo_url) && <p class="field-error">{fields.logo ?? fields.logo_url}</p>}
          {(newLogo || logoUrl) && (
            <button type="button" class="button ghost wl-remove-logo" onClick={removeLogo}>
              Remove logo
            </button>
          )}
        </div>
        <fieldset class="wl-colors">
          <legend>Colours</legend>
          {(Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]).map((key) => (
            <Field key={key} label={COLOR_LABELS[key]} name={`colors.${key}`} type="color" value={colors[key]} error={fields[`colors.${key}`]} onInput={(e) => setColors({ ...colors, [key]: e.currentTarget.value })} />
          ))}
        </fieldset>
        <Field label="Support e-mail" name="support_email" type="email" hint="Where your customers write for help." value={supportEmail} error={fields.support_email} onInput={(e) => setSupportEmail(e.currentTarget.value)} />
        <Field label="E-mail sender name" name="email_sender_name" value={senderName} error={fields.email_sender_name} onInput={(e) => setSenderName(e.currentTarget.value)} />
        {brand.key_prefixes_enabled && (
          <Field label="Key prefix" name="key_prefix_slug" hint="Keys created on your domains start sk_<prefix>_live_." value={slug} error={fields.key_prefix_slug} onInput={(e) => setSlug(e.currentTarget.value)} />
        )}
        <TextAreaField label="Custom CSS" name="custom_css" rows={4} hint="At most 20 KB; imports, external URLs and scripts are removed when saved." value={customCss} error={fields.custom_css} onInput={(e) => setCustomCss(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="button primary" disabled={action.busy}>
            {action.busy ? "Saving…" : "Save brand"}
          </button>
        </div>
      </form>
      <BrandPreview brand={preview} />
    </div>
  );
}
