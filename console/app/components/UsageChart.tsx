import { useId } from 'react';
import type { UsageGroup } from '../../../client/src/index.ts';
import { formatCost, formatTokens } from './money.ts';

export type ChartMetric = 'cost' | 'tokens';

const BAR = 24;
const GAP = 6;
const HEIGHT = 160;
const LABELS = 22;

const valueOf = (day: UsageGroup, metric: ChartMetric) => (metric === 'cost' ? day.cost : day.inputTokens + day.outputTokens);

/**
 * Cost (or input plus output tokens) per day as inline SVG bars: no chart library, nothing
 * inline but attributes (the console's Content-Security-Policy allows no inline styles). The
 * ledger lists every day of the range, idle ones with zero, so bar i is day i. Each bar's
 * title gives its day and figure; the days table below the chart has every number.
 */
export function UsageChart({ days, metric, currency }: { days: UsageGroup[]; metric: ChartMetric; currency: string }) {
  const caption = useId();
  const values = days.map((day) => valueOf(day, metric));
  const highest = Math.max(0, ...values);
  const show = (value: number) => (metric === 'cost' ? formatCost(value, currency) : `${formatTokens(value)} tokens`);
  const width = days.length * (BAR + GAP);
  const peak = highest > 0 ? days[values.indexOf(highest)]!.key : null;
  const summary = `${metric === 'cost' ? 'Cost' : 'Tokens'} per day, ${days[0]?.key ?? ''} to ${days.at(-1)?.key ?? ''}: ${peak ? `highest ${show(highest)} on ${peak}` : 'none'}`;
  // Every label where they fit: each day for a week or two, else every seventh (and the last).
  const labelled = (index: number) => days.length <= 14 || index % 7 === 0 || index === days.length - 1;
  return (
    <figure className="chart">
      <svg
        role="img"
        aria-labelledby={caption}
        viewBox={`0 0 ${Math.max(width, 1)} ${HEIGHT + LABELS}`}
        preserveAspectRatio="xMinYMin meet"
        width="100%"
        height={HEIGHT + LABELS}
      >
        <line x1={0} x2={width} y1={HEIGHT + 0.5} y2={HEIGHT + 0.5} className="axis" />
        {days.map((day, index) => {
          const value = values[index]!;
          // A day with some use keeps a sliver of a bar, so it never reads as idle.
          const height = highest > 0 ? Math.max(value > 0 ? 2 : 0, (value / highest) * (HEIGHT - 8)) : 0;
          const x = index * (BAR + GAP) + GAP / 2;
          return (
            <g key={day.key}>
              <rect className="bar" data-day={day.key} x={x} y={HEIGHT - height} width={BAR} height={height}>
                <title>{`${day.key}: ${show(value)}, ${day.runs} ${day.runs === 1 ? 'run' : 'runs'}`}</title>
              </rect>
              {labelled(index) ? (
                <text x={x + BAR / 2} y={HEIGHT + 15} textAnchor="middle" className="tick">
                  {day.key!.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption id={caption} className="muted small">
        {summary}
      </figcaption>
    </figure>
  );
}
