/** Signups over time as a small bar chart: plain SVG, no chart library. */
import type { SignupCounts } from "./api";

const HEIGHT = 120;
const BAR_GAP = 2;

export function SignupChart({ counts }: { counts: SignupCounts }) {
  const { data, total, interval } = counts;
  const max = Math.max(1, ...data.map((point) => point.count));
  const width = Math.max(data.length * 12, 240);
  const barWidth = data.length > 0 ? width / data.length - BAR_GAP : 0;
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
            {data.map((point, index) => {
              const height = Math.max(1, (point.count / max) * (HEIGHT - 4));
              return (
                <rect
                  key={point.period}
                  data-count={point.count}
                  x={index * (barWidth + BAR_GAP)}
                  y={HEIGHT - height}
                  width={Math.max(1, barWidth)}
                  height={height}
                  rx={1}
                  fill="currentColor"
                >
                  <title>{`${point.period}: ${point.count}`}</title>
                </rect>
              );
            })}
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
