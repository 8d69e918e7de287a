// Charts drawn by hand in SVG (no chart library): columns over time with a table of the same numbers
// for screen readers and keyboards, and a share bar for a row of a breakdown table.
import { DataTable } from "./data-table.tsx";

export interface Column {
  /** What the column is, e.g. a day. */
  label: string;
  value: number;
  /** The value as people read it. */
  shown: string;
}

const WIDTH = 600;
const HEIGHT = 160;

/** Columns in a row, the tallest the full height; labels of the first, middle and last column underneath. */
export function BarChart({ title, columns, labelName, valueName }: { title: string; columns: Column[]; labelName: string; valueName: string }) {
  const max = Math.max(...columns.map((c) => c.value), 0);
  const step = WIDTH / Math.max(columns.length, 1);
  const peak = columns.find((c) => c.value === max);
  const ticks = columns.length > 2 ? [columns[0], columns[Math.floor(columns.length / 2)], columns[columns.length - 1]] : columns;
  return (
    <figure class="bar-chart">
      <div class="bar-chart-scale muted small" aria-hidden="true">
        {peak && max > 0 ? peak.shown : ""}
      </div>
      <svg class="bar-chart-plot" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${columns.length} columns, highest ${peak && max > 0 ? `${peak.shown} (${peak.label})` : "none"}. The table below has every value.`}>
        <line class="bar-chart-axis" x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
        {columns.map((c, i) => {
          const height = max > 0 ? Math.max((c.value / max) * (HEIGHT - 4), c.value > 0 ? 2 : 0) : 0;
          return (
            <rect key={c.label} class="bar-chart-bar" x={i * step + step * 0.15} width={step * 0.7} y={HEIGHT - height} height={height}>
              <title>{`${c.label}: ${c.shown}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="bar-chart-ticks muted small" aria-hidden="true">
        {ticks.map((c) => (
          <span key={c.label}>{c.label}</span>
        ))}
      </div>
      <figcaption>
        <details class="bar-chart-table">
          <summary>{title} as a table</summary>
          <DataTable caption={title} columns={[labelName, valueName]}>
            {columns.map((c) => (
              <tr key={c.label}>
                <th scope="row">{c.label}</th>
                <td>{c.shown}</td>
              </tr>
            ))}
          </DataTable>
        </details>
      </figcaption>
    </figure>
  );
}

/** A horizontal bar of `value` out of `max`, for a table cell (the cell's numbers say the same in words). */
export function ShareBar({ value, max }: { value: number; max: number }) {
  const width = max > 0 ? Math.max((value / max) * 100, value > 0 ? 1 : 0) : 0;
  return (
    <svg class="share-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
      <rect class="share-bar-track" width="100" height="10" />
      <rect class="bar-chart-bar" width={width} height="10" />
    </svg>
  );
}
