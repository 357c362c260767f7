import { describe, expect, it } from "vitest";
import { formatDuration, formatDurationAdjective, inactiveAfterSeconds, SEAT_RULES, seatRuleText } from "./seats";
import { TIERS } from "./tiers";

describe("seat rule wording", () => {
  it("names durations in the largest exact unit", () => {
    expect(formatDuration(20 * 60)).toBe("20 minutes");
    expect(formatDuration(3600)).toBe("1 hour");
    expect(formatDuration(90 * 60)).toBe("90 minutes");
    expect(formatDuration(7 * 86_400)).toBe("7 days");
    expect(formatDuration(1)).toBe("1 second");
    expect(formatDurationAdjective(15 * 60)).toBe("15-minute");
  });

  it("explains the free tier's rule with the contracts' numbers", () => {
    const interval = TIERS.free.heartbeatIntervalSeconds;
    expect(
      seatRuleText({
        heartbeat_interval_seconds: interval,
        inactive_after_seconds: inactiveAfterSeconds(interval),
        revival_window_seconds: SEAT_RULES.revivalWindowSeconds,
      }),
    ).toBe(
      "A device that sends no heartbeat for 20 minutes (its 15-minute interval plus 5 minutes) is marked inactive " +
        "and frees its slot. If it comes back within 7 days it gets its slot back while one is free.",
    );
  });
});
