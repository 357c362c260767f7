/**
 * The tools Flotilla works with, named once (docs/decisions/0021). The home page, the docs (through content
 * tokens expanded at build time, so docs search finds the names), the blog and the plans all read this list.
 */
export interface ExecutorCli {
  /** Product name as its maker writes it. */
  name: string;
  maker: string;
  /** The command Flotilla looks for on the PATH (`"cli": "auto"`). */
  command: string;
}

/** Spec section 1: "four local command-line AI coding tools". */
export const EXECUTOR_CLIS: readonly ExecutorCli[] = [
  { name: "Claude Code", maker: "Anthropic", command: "claude" },
  { name: "Codex CLI", maker: "OpenAI", command: "codex" },
  { name: "Gemini CLI", maker: "Google", command: "gemini" },
  { name: "Aider", maker: "open source", command: "aider" },
] as const;

/** Spec section 1: the no-cost test and debug executor. */
export const TEST_EXECUTOR = { name: "Echo", detail: "the no-cost test and debug executor" } as const;

/** Spec section 1: "integrations with an issue tracker, a chat tool and a wiki" (Hybrid Pro and above). */
export const TEAM_INTEGRATIONS = {
  issueTracker: { kind: "Issue tracker", name: "Linear" },
  chat: { kind: "Chat", name: "Slack" },
  wiki: { kind: "Wiki", name: "Notion" },
} as const;

/** "A, B, C and D". */
export function listInWords(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** "Claude Code, Codex CLI, Gemini CLI and Aider". */
export const EXECUTOR_CLI_NAMES = listInWords(EXECUTOR_CLIS.map((cli) => cli.name));

/** "Linear, Slack and Notion". */
export const TEAM_INTEGRATION_NAMES = listInWords(Object.values(TEAM_INTEGRATIONS).map((tool) => tool.name));
