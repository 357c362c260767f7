import { describe, expect, it } from "vitest";
import { featureLabel, formatCount, formatDisplayDate, roundPercent, usageBarWidth } from "./portal-format";

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
