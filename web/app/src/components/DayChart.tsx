// A bar chart of one figure per day, drawn in SVG (its sizes are attributes, which the CSP
// allows, not inline styles), with the same figures as a table for those who do not see it.
import { useId } from "preact/hooks";
import { useFormat } from "../i18n/index";

export interface DayValue {
  date: string;
  value: number;
}

export function DayChart({ title, days, tableLabel, dateLabel, valueLabel }: {
  title: string;
  days: DayValue[];
  tableLabel: string;
  dateLabel: string;
  valueLabel: string;
}) {
  const f = useFormat();
  const id = useId();
  const max = Math.max(1, ...days.map((d) => d.value));
  const width = 600;
  const height = 120;
  const gap = 2;
  const bar = days.length > 0 ? width / days.length - gap : 0;
  const total = days.reduce((n, d) => n + d.value, 0);
  return (
    <figure class="chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height + 1}`} role="img" aria-labelledby={`${id}-title`} preserveAspectRatio="none">
        <line x1={0} y1={height} x2={width} y2={height} class="axis" />
        {days.map((d, i) => {
          const h = Math.round((d.value / max) * (height - 4));
          return (
            <rect key={d.date} x={i * (bar + gap)} y={height - h} width={bar} height={h} class="bar">
              <title>{`${f.date(d.date)}: ${f.number(d.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <details>
        <summary>{tableLabel}</summary>
        <table>
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{dateLabel}</th>
              <th scope="col">{valueLabel}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <td>{f.date(d.date)}</td>
                <td>{f.number(d.value)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Σ</th>
              <td>{f.number(total)}</td>
            </tr>
          </tbody>
        </table>
      </details>
    </figure>
  );
}
