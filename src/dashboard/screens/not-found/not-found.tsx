import { PublicPage } from "../../layout/public-page.tsx";
import { PAGES } from "../../paths.ts";
import { Link } from "../../ui/link.tsx";

export function NotFound() {
  return (
    <PublicPage title="Page not found">
      <p>There is no page at this address.</p>
      <p class="links">
        <Link href={PAGES.home}>Go to the dashboard</Link>
      </p>
    </PublicPage>
  );
}
