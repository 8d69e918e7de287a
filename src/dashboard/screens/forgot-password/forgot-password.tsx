import { useState } from "preact/hooks";
import { PublicPage } from "../../layout/public-page.tsx";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { PAGES } from "../../paths.ts";
import { Field } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";

export function ForgotPassword({ query }: { query: URLSearchParams }) {
  const [email, setEmail] = useState(query.get("email") ?? "");
  const [sent, setSent] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setSent(await action.run(async () => void (await session.client.auth.forgotPassword({ email }))));
  };
  return (
    <PublicPage title="Reset your password">
      {sent ? (
        <Success>
          <p>If {email} has an account, a link to choose a new password is on its way. It works once, for a limited time.</p>
        </Success>
      ) : (
        <form onSubmit={submit} noValidate>
          <ProblemNotice problem={action.problem} />
          <Field label="E-mail" name="email" type="email" autocomplete="username" required value={email} error={action.problem?.fields.email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <button type="submit" class="button primary wide" disabled={action.busy}>
            Send the link
          </button>
        </form>
      )}
      <p class="links">
        <Link href={PAGES.signIn}>Back to sign in</Link>
      </p>
    </PublicPage>
  );
}
