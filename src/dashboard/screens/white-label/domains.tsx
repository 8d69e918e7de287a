// The brand's domains: attach one, publish the TXT record shown, verify, detach after confirming.
import { useState } from "preact/hooks";
import type { BrandDomain } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { CopyButton } from "../../ui/copy-button.tsx";
import { Field } from "../../ui/field.tsx";
import { Empty, ProblemNotice } from "../../ui/status.tsx";
import { DangerButton } from "../../ui/actions.tsx";

export function Domains({ initial }: { initial: BrandDomain[] }) {
  const [domains, setDomains] = useState(initial);
  const [domain, setDomain] = useState("");
  const attaching = useAction();
  const acting = useAction();
  const confirm = useConfirm();
  const replace = (updated: BrandDomain) => setDomains((all) => all.map((d) => (d.domain === updated.domain ? updated : d)));
  const attach = async (event: Event) => {
    event.preventDefault();
    const ok = await attaching.run(async () => {
      const added = await session.client.whiteLabel.attachDomain({ domain });
      setDomains((all) => [...all, added]);
    });
    if (ok) setDomain("");
  };
  const verify = (d: BrandDomain) =>
    acting.run(async () => {
      try {
        replace(await session.client.whiteLabel.verifyDomain(d.domain));
      } finally {
        // A failed check is recorded on the domain (last_error, last_checked_at): show it.
        const fresh = (await session.client.whiteLabel.get().catch(() => null))?.domains.find((x) => x.domain === d.domain);
        if (fresh) replace(fresh);
      }
    });
  const detach = async (d: BrandDomain) => {
    const ok = await confirm.ask({ title: `Detach ${d.domain}?`, message: "Pages on it stop showing your brand at once. Attaching it again needs a new verification.", action: "Detach domain" });
    if (ok && (await acting.run(() => session.client.whiteLabel.detachDomain(d.domain)))) setDomains((all) => all.filter((x) => x.domain !== d.domain));
  };
  return (
    <section aria-labelledby="domains-title" class="wl-domains">
      <h2 id="domains-title">Domains</h2>
      <p class="muted">Point a domain of yours at this server (with TLS, at your proxy), then prove it is yours with the DNS record shown.</p>
      <form class="panel" onSubmit={attach} noValidate aria-label="Attach a domain">
        <ProblemNotice problem={attaching.problem} />
        <Field label="Domain" name="domain" hint="e.g. app.example.com" value={domain} error={attaching.problem?.fields.domain} onInput={(e) => setDomain(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="button secondary" disabled={attaching.busy}>
            {attaching.busy ? "Attaching…" : "Attach domain"}
          </button>
        </div>
      </form>
      <ProblemNotice problem={acting.problem} />
      {domains.length === 0 && <Empty title="No domains yet">Until one is verified, your brand shows nowhere.</Empty>}
      <ul class="wl-domain-list">
        {domains.map((d) => (
          <li key={d.domain} class="panel wl-domain" aria-label={d.domain}>
            <div class="wl-domain-head">
              <h3>{d.domain}</h3>
              <span class={d.status === "verified" ? "badge current" : "badge"}>{d.status === "verified" ? "Verified" : "Pending"}</span>
            </div>
            {d.status === "verified" ? (
              <p class="muted small">
                Verified {formatDate(d.verified_at)}
                {d.verified_by === "operator" ? " (this instance skips the DNS check)" : " by its DNS record"}.
              </p>
            ) : (
              <>
                <p>Create this DNS record, then verify:</p>
                <dl class="wl-record">
                  <dt>Type</dt>
                  <dd>{d.verification.type}</dd>
                  <dt>Name</dt>
                  <dd>
                    <code>{d.verification.name}</code> <CopyButton text={d.verification.name} label="Copy name" />
                  </dd>
                  <dt>Value</dt>
                  <dd>
                    <code>{d.verification.value}</code> <CopyButton text={d.verification.value} label="Copy value" />
                  </dd>
                </dl>
                {d.last_error && (
                  <p class="status-bad small">
                    Last check {formatDate(d.last_checked_at)}: {d.last_error}
                  </p>
                )}
              </>
            )}
            <div class="actions">
              {d.status !== "verified" && (
                <button type="button" class="button primary" disabled={acting.busy} aria-label={`Verify ${d.domain}`} onClick={() => verify(d)}>
                  Verify
                </button>
              )}
              <DangerButton label={`Detach ${d.domain}`} disabled={acting.busy} onClick={() => detach(d)}>Detach</DangerButton>
            </div>
          </li>
        ))}
      </ul>
      {confirm.dialog}
    </section>
  );
}
