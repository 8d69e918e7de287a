import { useState } from "preact/hooks";
import { PublicPage } from "../../layout/public-page.tsx";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { PAGES } from "../../paths.ts";
import { Field } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { nextPath } from "../sign-in/sign-in.tsx";

/** Where a new account goes: where it was sent (`next`), else the first steps. */
export function afterSignUp(query: URLSearchParams): string {
  return query.get("next") ? nextPath(query) : PAGES.gettingStarted;
}

export function SignUp({ query }: { query: URLSearchParams }) {
  const [form, setForm] = useState({ name: "", email: "", password: "", workspace_name: "" });
  const action = useAction();
  const edit = (name: keyof typeof form) => (event: { currentTarget: HTMLInputElement }) => setForm({ ...form, [name]: event.currentTarget.value });
  const submit = async (event: Event) => {
    event.preventDefault();
    const input = { email: form.email, password: form.password, name: form.name || undefined, workspace_name: form.workspace_name || undefined };
    if (await action.run(() => session.signUp(input))) navigate(afterSignUp(query), { replace: true });
  };
  const fields = action.problem?.fields ?? {};
  // An e-mail that already has an account: the way out is signing in with it.
  const emailError = action.problem?.code === "email_taken" && fields.email ? (
    <>
      {fields.email} <Link href={withQuery(PAGES.signIn, { email: form.email, next: query.get("next") })}>Sign in instead?</Link>
    </>
  ) : (
    fields.email
  );
  return (
    <PublicPage title="Create your account">
      <form onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <Field label="Your name" name="name" autocomplete="name" value={form.name} error={fields.name} onInput={edit("name")} />
        <Field label="E-mail" name="email" type="email" autocomplete="email" required value={form.email} error={emailError} onInput={edit("email")} />
        <Field label="Password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters." value={form.password} error={fields.password} onInput={edit("password")} />
        <Field label="Workspace name" name="workspace_name" hint="Your team or company; you can add more workspaces later." value={form.workspace_name} error={fields.workspace_name} onInput={edit("workspace_name")} />
        <button type="submit" class="button primary wide" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create account"}
        </button>
      </form>
      <p class="links">
        <Link href={withQuery(PAGES.signIn, { next: query.get("next") })}>I already have an account</Link>
      </p>
    </PublicPage>
  );
}
