// A table of records in a frame that scrolls sideways on narrow screens, its caption for screen readers.
import type { ComponentChildren } from "preact";

/** `columns`: the header of each column; null for a column of row actions (named for screen readers only). */
export function DataTable({ caption, columns, children }: { caption: string; columns: (string | null)[]; children: ComponentChildren }) {
  return (
    // Focusable, so a keyboard can scroll a table wider than the screen (one with no link or button in it too).
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th scope="col" key={i}>
                {column ?? <span class="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
