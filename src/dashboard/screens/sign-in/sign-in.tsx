import { useState } from "preact/hooks";
import { PublicPage } from "../../layout/public-page.tsx";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { PAGES } from "../../paths.ts";
import { Field } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

/** Where to go after signing in: `next` when it is a path of this site, else the home screen. */
export function nextPath(query: URLSearchParams): string {
  const next = query.get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : PAGES.home;
}

export function SignIn({ query }: { query: URLSearchParams }) {
  const [email, setEmail] = useState(query.get("email") ?? "");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => session.signIn(email, password))) navigate(nextPath(query), { replace: true });
  };
  const fields = action.problem?.fields ?? {};
  return (
    <PublicPage title="Sign in">
      <form onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <Field label="E-mail" name="email" type="email" autocomplete="username" required value={email} error={fields.email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required value={password} error={fields.password} onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" class="button primary wide" disabled={action.busy}>
          {action.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p class="links">
        <Link href={withQuery(PAGES.forgotPassword, { email })}>Forgot your password?</Link>
        <Link href={withQuery(PAGES.signUp, { next: query.get("next") })}>Create an account</Link>
      </p>
    </PublicPage>
  );
}
