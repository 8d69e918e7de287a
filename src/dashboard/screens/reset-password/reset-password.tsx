// Where the password-reset e-mail links: /reset-password?token=…
import { useState } from "preact/hooks";
import { PublicPage } from "../../layout/public-page.tsx";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { PAGES } from "../../paths.ts";
import { Field } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";

export function ResetPassword({ query }: { query: URLSearchParams }) {
  const token = query.get("token") ?? "";
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setDone(await action.run(() => session.client.auth.resetPassword({ token, password })));
  };
  const fields = action.problem?.fields ?? {};
  if (done) {
    return (
      <PublicPage title="Password changed">
        <Success>
          <p>Your new password is set, and every session that used the old one was signed out.</p>
        </Success>
        <p class="links">
          <Link href={PAGES.signIn}>Sign in</Link>
        </p>
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Choose a new password">
      {!token || fields.token ? (
        <div class="notice error" role="alert">
          <p>{fields.token ? "This link is invalid, already used or expired." : "This link has no reset token."} Ask for a new one.</p>
        </div>
      ) : (
        <ProblemNotice problem={action.problem} />
      )}
      <form onSubmit={submit} noValidate>
        <Field label="New password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters." value={password} error={fields.password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" class="button primary wide" disabled={action.busy || !token}>
          Set the new password
        </button>
      </form>
      <p class="links">
        <Link href={PAGES.forgotPassword}>Send me a new link</Link>
      </p>
    </PublicPage>
  );
}
