/**
 * Facts that live in packages/contracts, written into the Markdown content at build time: `{{site:NAME}}`
 * is replaced before rendering, so the docs, the blog and the docs search index say what the contracts say.
 * An unknown token fails the build.
 */
import {
  EXECUTOR_CLI_NAMES,
  EXECUTOR_CLIS,
  formatPrices,
  PLANS,
  QUOTA_NOTE,
  TEAM_INTEGRATION_NAMES,
  TEAM_INTEGRATIONS,
} from "@flotilla/contracts";

const cell = (text: string) => text.replaceAll("|", "\\|");

function plansTable(): string {
  const rows = PLANS.map((plan) => {
    const status = plan.status === "join-beta" ? `Join Beta${plan.recommended ? " (recommended)" : ""}` : "Coming Soon";
    return `| **${plan.name}** | ${formatPrices(plan.prices)} | ${cell(plan.includes.join("; "))} | ${status} |`;
  });
  return ["| Plan | Price | What it includes | Status |", "|---|---|---|---|", ...rows].join("\n");
}

function executorClisTable(): string {
  const rows = EXECUTOR_CLIS.map((cli) => `| ${cli.name} | ${cli.maker} | \`${cli.command}\` |`);
  return ["| CLI | Made by | Command Flotilla looks for |", "|---|---|---|", ...rows].join("\n");
}

const { issueTracker, chat, wiki } = TEAM_INTEGRATIONS;

export const CONTENT_TOKENS: Readonly<Record<string, () => string>> = {
  "executor-clis": () => EXECUTOR_CLI_NAMES,
  "executor-clis-table": executorClisTable,
  "issue-tracker": () => issueTracker.name,
  chat: () => chat.name,
  wiki: () => wiki.name,
  "team-integrations": () => TEAM_INTEGRATION_NAMES,
  "plans-table": plansTable,
  "quota-note": () => QUOTA_NOTE,
};

export function expandContentTokens(markdown: string, where: string): string {
  return markdown.replace(/\{\{site:([a-z-]+)\}\}/g, (_, name: string) => {
    const token = CONTENT_TOKENS[name];
    if (!token) throw new Error(`${where}: unknown content token {{site:${name}}}`);
    return token();
  });
}
