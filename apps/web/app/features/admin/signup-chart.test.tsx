import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fillPeriods, SignupChart } from "./signup-chart";

describe("signup chart", () => {
  it("fills the periods the API left out (no signups) with zero, by day, week and month", () => {
    expect(
      fillPeriods({
        interval: "day",
        total: 3,
        data: [
          { period: "2026-02-27", count: 1 },
          { period: "2026-03-02", count: 2 },
        ],
      }),
    ).toEqual([
      { period: "2026-02-27", count: 1 },
      { period: "2026-02-28", count: 0 },
      { period: "2026-03-01", count: 0 },
      { period: "2026-03-02", count: 2 },
    ]);
    expect(
      fillPeriods({
        interval: "week",
        total: 2,
        data: [
          { period: "2026-01-05", count: 1 },
          { period: "2026-01-19", count: 1 },
        ],
      }).map((point) => point.period),
    ).toEqual(["2026-01-05", "2026-01-12", "2026-01-19"]);
    expect(
      fillPeriods({
        interval: "month",
        total: 2,
        data: [
          { period: "2025-12-01", count: 1 },
          { period: "2026-02-01", count: 1 },
        ],
      }).map((point) => point.period),
    ).toEqual(["2025-12-01", "2026-01-01", "2026-02-01"]);
  });

  it("draws one bar per period with signups, scaled to the busiest, and says so in its name", () => {
    render(
      <SignupChart
        counts={{
          interval: "day",
          total: 6,
          data: [
            { period: "2026-01-01", count: 2 },
            { period: "2026-01-03", count: 4 },
          ],
        }}
      />,
    );
    const chart = screen.getByRole("img", {
      name: "Signups per day: 6 in all, from 2026-01-01 to 2026-01-03, at most 4 in one day.",
    });
    const bars = [...chart.querySelectorAll("rect[data-count]")];
    expect(bars.map((bar) => Number(bar.getAttribute("height")))).toEqual([58, 116]);
  });
});
