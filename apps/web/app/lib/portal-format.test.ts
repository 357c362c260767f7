import { describe, expect, it } from "vitest";
import {
  featureLabel,
  formatClockTime,
  formatCount,
  formatDisplayDate,
  formatExactTime,
  formatRelativeTime,
  roundPercent,
  usageBarWidth,
} from "./portal-format";

describe("formatDisplayDate", () => {
  it("writes dates in US English", () => {
    expect(formatDisplayDate("2025-06-12T12:00:00Z")).toBe("Jun 12, 2025");
    expect(formatDisplayDate("2026-01-03T12:00:00.000Z")).toBe("Jan 3, 2026");
  });

  it("falls back to 'Never' for a missing date, or to the given fallback", () => {
    expect(formatDisplayDate(null)).toBe("Never");
    expect(formatDisplayDate(undefined)).toBe("Never");
    expect(formatDisplayDate("")).toBe("Never");
    expect(formatDisplayDate(null, "Not yet")).toBe("Not yet");
  });

  it("does not show 'Invalid Date' for text that is not a date", () => {
    expect(formatDisplayDate("soon")).toBe("Never");
    expect(formatDisplayDate("soon", "unknown")).toBe("unknown");
  });
});

describe("usageBarWidth", () => {
  it("follows the utilization between 0 and 100", () => {
    expect(usageBarWidth(0)).toBe(0);
    expect(usageBarWidth(42.5)).toBe(42.5);
    expect(usageBarWidth(100)).toBe(100);
  });

  it("is capped at 100 percent and never negative", () => {
    expect(usageBarWidth(150)).toBe(100);
    expect(usageBarWidth(100.01)).toBe(100);
    expect(usageBarWidth(-5)).toBe(0);
    expect(usageBarWidth(Number.NaN)).toBe(0);
    expect(usageBarWidth(Number.POSITIVE_INFINITY)).toBe(0);
  });
});

describe("roundPercent and formatCount", () => {
  it("rounds utilization to a whole percent, keeping figures above 100", () => {
    expect(roundPercent(42.4)).toBe(42);
    expect(roundPercent(42.5)).toBe(43);
    expect(roundPercent(150.2)).toBe(150);
    expect(roundPercent(Number.NaN)).toBe(0);
  });

  it("writes counts with US thousands separators", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(1234567)).toBe("1,234,567");
  });
});

describe("featureLabel", () => {
  it("shows hyphens as spaces", () => {
    expect(featureLabel("shared-memory")).toBe("shared memory");
    expect(featureLabel("code-review-agent")).toBe("code review agent");
    expect(featureLabel("echo")).toBe("echo");
  });
});

describe("relative and exact times", () => {
  const now = new Date("2025-06-12T12:00:00Z");
  it("says how long ago, in words", () => {
    expect(formatRelativeTime("2025-06-12T11:59:30Z", now)).toBe("just now");
    expect(formatRelativeTime("2025-06-12T11:56:00Z", now)).toBe("4 minutes ago");
    expect(formatRelativeTime("2025-06-12T09:00:00Z", now)).toBe("3 hours ago");
    expect(formatRelativeTime("2025-06-11T12:00:00Z", now)).toBe("yesterday");
    expect(formatRelativeTime("2025-06-12T12:40:00Z", now)).toBe("in 40 minutes");
    expect(formatRelativeTime(null, now)).toBe("Never");
    expect(formatRelativeTime("soon", now)).toBe("Never");
  });

  it("gives the exact moment in US English", () => {
    expect(formatExactTime("2025-06-12T12:05:00Z")).toMatch(/^Jun 12, 2025, \d{1,2}:05 (AM|PM)$/);
    expect(formatExactTime(null)).toBe("Never");
  });

  it("gives a clock time, with the date only when it is another day", () => {
    const local = new Date(2025, 5, 12, 9, 0);
    expect(formatClockTime(new Date(2025, 5, 12, 14, 5).toISOString(), local)).toBe("2:05 PM");
    expect(formatClockTime(new Date(2025, 5, 13, 0, 30).toISOString(), local)).toBe("Jun 13, 12:30 AM");
  });
});

describe("formatClockTime across midnight", () => {
  it("gives the time alone on the same day, and the date too when the moment is on another day", () => {
    const now = new Date(2026, 10, 23, 23, 40);
    expect(formatClockTime(new Date(2026, 10, 23, 23, 55).toISOString(), now)).toBe("11:55 PM");
    expect(formatClockTime(new Date(2026, 10, 24, 0, 40).toISOString(), now)).toBe("Nov 24, 12:40 AM");
  });
});
