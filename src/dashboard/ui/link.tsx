// A link inside the dashboard: a real <a> (open in a new tab works), followed without a reload.
import type { ComponentChildren } from "preact";
import { href, navigate } from "../lib/router.ts";

interface LinkProps {
  href: string;
  class?: string;
  "aria-current"?: "page";
  "aria-label"?: string;
  children: ComponentChildren;
}

export function Link({ href: to, ...props }: LinkProps) {
  return (
    <a
      {...props}
      href={href(to)}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
