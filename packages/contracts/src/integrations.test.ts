import { describe, expect, it } from "vitest";
import { EXECUTOR_CLI_NAMES, EXECUTOR_CLIS, listInWords, TEAM_INTEGRATION_NAMES } from "./integrations";

describe("supported tools (decision 0021)", () => {
  it("names four local command-line coding tools, each with the command looked up on the PATH", () => {
    expect(EXECUTOR_CLIS).toHaveLength(4);
    for (const cli of EXECUTOR_CLIS) expect(cli.command).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(EXECUTOR_CLI_NAMES).toBe("Claude Code, Codex CLI, Gemini CLI and Aider");
  });

  it("names the issue tracker, chat tool and wiki", () => {
    expect(TEAM_INTEGRATION_NAMES).toBe("Linear, Slack and Notion");
  });

  it("joins names the way a sentence does", () => {
    expect(listInWords([])).toBe("");
    expect(listInWords(["A"])).toBe("A");
    expect(listInWords(["A", "B"])).toBe("A and B");
    expect(listInWords(["A", "B", "C"])).toBe("A, B and C");
  });
});
