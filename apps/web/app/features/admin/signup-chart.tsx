/** Signups over time as a small bar chart: plain SVG, no chart library. Periods without signups show as gaps. */
import type { SignupCounts } from "./api";

const HEIGHT = 120;
const BAR_GAP = 2;
const MAX_BAR = 24;
/** Beyond this many periods the bars are drawn as the API sent them (no zero-filling). */
const MAX_PERIODS = 800;

function step(date: Date, interval: SignupCounts["interval"]): Date {
  const next = new Date(date);
  if (interval === "month") next.setUTCMonth(next.getUTCMonth() + 1);
  else next.setUTCDate(next.getUTCDate() + (interval === "week" ? 7 : 1));
  return next;
}

/** Every period from the first to the last, with 0 where the API had no row (it only sends periods with signups). */
export function fillPeriods(counts: SignupCounts): { period: string; count: number }[] {
  const { data, interval } = counts;
  const first = data[0];
  const last = data.at(-1);
  if (!first || !last) return [];
  const byPeriod = new Map(data.map((point) => [point.period, point.count]));
  const filled: { period: string; count: number }[] = [];
  for (
    let at = new Date(`${first.period}T00:00:00Z`);
    at <= new Date(`${last.period}T00:00:00Z`) && filled.length <= MAX_PERIODS;
    at = step(at, interval)
  ) {
    const period = at.toISOString().slice(0, 10);
    filled.push({ period, count: byPeriod.get(period) ?? 0 });
  }
  return filled.length > MAX_PERIODS ? data : filled;
}

export function SignupChart({ counts }: { counts: SignupCounts }) {
  const { total, interval } = counts;
  const data = fillPeriods(counts);
  const max = Math.max(1, ...data.map((point) => point.count));
  const width = Math.max(data.length * 12, 240);
  const slot = data.length > 0 ? width / data.length : 0;
  const barWidth = Math.max(1, Math.min(slot - BAR_GAP, MAX_BAR));
  const first = data[0]?.period;
  const last = data.at(-1)?.period;
  const label = `Signups per ${interval}: ${total.toLocaleString("en-US")} in all${
    first && last ? `, from ${first} to ${last}, at most ${max.toLocaleString("en-US")} in one ${interval}` : ""
  }.`;
  return (
    <figure className="rounded-xl border border-border bg-bg-elevated p-4">
      <figcaption className="flex flex-wrap items-baseline justify-between gap-2 text-sm">
        <span className="font-medium">Signups per {interval}</span>
        <span className="text-fg-muted">{total.toLocaleString("en-US")} in all</span>
      </figcaption>
      {data.length === 0 ? (
        <p className="mt-3 text-sm text-fg-muted">No signups in this range.</p>
      ) : (
        <>
          <svg
            role="img"
            aria-label={label}
            viewBox={`0 0 ${width} ${HEIGHT}`}
            preserveAspectRatio="none"
            className="mt-3 h-28 w-full text-sky-600 dark:text-sky-400"
          >
            <line x1={0} y1={HEIGHT - 0.5} x2={width} y2={HEIGHT - 0.5} stroke="currentColor" strokeOpacity={0.25} />
            {data.map((point, index) =>
              point.count === 0 ? null : (
                <rect
                  key={point.period}
                  data-count={point.count}
                  x={index * slot + (slot - barWidth) / 2}
                  y={HEIGHT - Math.max(1, (point.count / max) * (HEIGHT - 4))}
                  width={barWidth}
                  height={Math.max(1, (point.count / max) * (HEIGHT - 4))}
                  rx={1}
                  fill="currentColor"
                >
                  <title>{`${point.period}: ${point.count}`}</title>
                </rect>
              ),
            )}
          </svg>
          <div className="mt-1 flex justify-between text-xs text-fg-muted" aria-hidden="true">
            <span>{first}</span>
            <span>{last}</span>
          </div>
        </>
      )}
    </figure>
  );
}
