// Where newsletter e-mails link: /newsletter/confirm?token=… (double opt-in) and /newsletter/unsubscribe?token=….
// Nothing happens on load: mail scanners open links, and only a person should press the button.
import { useState } from "preact/hooks";
import type { NewsletterState } from "../../../sdk/ts/src/index.ts";
import { PublicPage } from "../../layout/public-page.tsx";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { ProblemNotice, Success } from "../../ui/status.tsx";

const TEXT = {
  confirm: { title: "Confirm your subscription", intro: "Press the button to start receiving the newsletter.", button: "Confirm my subscription", done: (email: string) => `${email} is subscribed. Thank you!` },
  unsubscribe: { title: "Unsubscribe", intro: "Press the button and we will send you no more newsletters.", button: "Unsubscribe", done: (email: string) => `${email} is unsubscribed. You will receive no more newsletters.` },
};

export function Newsletter({ mode, query }: { mode: "confirm" | "unsubscribe"; query: URLSearchParams }) {
  const token = query.get("token") ?? "";
  const text = TEXT[mode];
  const [result, setResult] = useState<NewsletterState | null>(null);
  const action = useAction();
  const go = () =>
    action.run(async () => {
      const body = { token };
      setResult(mode === "confirm" ? await session.client.frontDoor.confirmSubscription(body) : await session.client.frontDoor.unsubscribe(body));
    });
  const invalidLink = !token || action.problem?.fields.token;
  return (
    <PublicPage title={text.title}>
      {result ? (
        <Success>
          <p>{text.done(result.email)}</p>
        </Success>
      ) : (
        <>
          <p>{text.intro}</p>
          {invalidLink ? (
            <div class="notice error" role="alert">
              <p>This link is invalid or has expired.</p>
            </div>
          ) : (
            <ProblemNotice problem={action.problem} />
          )}
          <button type="button" class="button primary wide" disabled={action.busy || !token} onClick={go}>
            {text.button}
          </button>
        </>
      )}
    </PublicPage>
  );
}
