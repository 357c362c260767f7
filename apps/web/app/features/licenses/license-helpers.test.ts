import { describe, expect, it } from "vitest";
import { executionsLabel, featureChips, statusLabel, statusTone, tierBadgeClass } from "./license-helpers";

describe("tierBadgeClass", () => {
  it("gives each known tier its own colour and any other tier a neutral one", () => {
    const known = ["free", "plus", "pro", "pro+", "ultra"].map(tierBadgeClass);
    expect(new Set(known).size).toBe(5);
    const neutral = tierBadgeClass("enterprise");
    expect(known).not.toContain(neutral);
    expect(neutral).toContain("slate");
    expect(tierBadgeClass("PRO")).toBe(tierBadgeClass("pro"));
  });
});

describe("statusTone and statusLabel", () => {
  it("knows active, expired and suspended; anything else is neutral", () => {
    expect(statusTone("active")).toBe("active");
    expect(statusTone("Expired")).toBe("expired");
    expect(statusTone("suspended")).toBe("suspended");
    expect(statusTone("pending")).toBe("other");
    expect(statusTone("")).toBe("other");
  });

  it("capitalises the status for display", () => {
    expect(statusLabel("active")).toBe("Active");
    expect(statusLabel("SUSPENDED")).toBe("Suspended");
    expect(statusLabel(" ")).toBe("Unknown");
  });
});

describe("feature chips", () => {
  it("shows the execution limit, 'Unlimited executions' without one", () => {
    expect(executionsLabel(null)).toBe("Unlimited concurrent executions");
    expect(executionsLabel(4)).toBe("4 concurrent executions");
    expect(executionsLabel(1)).toBe("1 concurrent execution");
  });

  it("adds a chip only for each flag that is on", () => {
    expect(
      featureChips({ maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false }),
    ).toEqual(["1 concurrent execution"]);
    expect(
      featureChips({ maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true }),
    ).toEqual(["Unlimited concurrent executions", "Shared Memory", "Backups", "AI Models"]);
    expect(
      featureChips({ maxConcurrentExecutions: 3, sharedMemory: false, backups: true, embeddingModels: false }),
    ).toEqual(["3 concurrent executions", "Backups"]);
  });
});
