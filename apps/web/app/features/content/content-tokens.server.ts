/**
 * Facts that live in packages/contracts, written into the Markdown content at build time: `{{site:NAME}}`
 * is replaced before rendering, so the docs, the blog and the docs search index say what the contracts say.
 * An unknown token fails the build.
 */
import {
  BRAND,
  EXECUTOR_CLI_NAMES,
  EXECUTOR_CLIS,
  formatPrices,
  LEGAL_ENTITY,
  PLANS,
  QUOTA_NOTE,
  TEAM_INTEGRATION_NAMES,
  TEAM_INTEGRATIONS,
} from "@flotilla/contracts";
import {
  EXECUTION_RULES,
  executionExpiresAfterSeconds,
  executionRuleText,
  limitText,
} from "@flotilla/contracts/executions";
import { AUDIT_NETWORK_TEXT, RETENTION_DAYS, RETENTION_POLICY_ROWS } from "@flotilla/contracts/retention";
import { formatDuration, inactiveAfterSeconds, SEAT_RULES } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION, LICENSE_CODE_MESSAGES, LICENSE_CODES, TIERS } from "@flotilla/contracts/tiers";
import { EXECUTION_EXIT_WAIT_MS } from "@flotilla/contracts/timings";

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

/** Per tier: machines, heartbeat interval and when a silent machine loses its slot (tiers.ts and seats.ts). */
function seatsTable(): string {
  const rows = Object.values(TIERS).map(
    (tier) =>
      `| ${tier.tier} | ${tier.maxMachines} | ${formatDuration(tier.heartbeatIntervalSeconds)} | ${formatDuration(inactiveAfterSeconds(tier.heartbeatIntervalSeconds))} |`,
  );
  return ["| Tier | Machines at once | Heartbeat every | Inactive after |", "|---|---|---|---|", ...rows].join("\n");
}

/** Per tier: how many executions may run at once across all of a license's machines (tiers.ts). */
function executionsTable(): string {
  const rows = Object.values(TIERS).map(
    (tier) =>
      `| ${tier.tier} | ${tier.features.maxConcurrentExecutions === null ? "Unlimited" : tier.features.maxConcurrentExecutions} |`,
  );
  return ["| Tier | Executions at once, across all machines |", "|---|---|", ...rows].join("\n");
}

/** What each validation code means and what the app should do, in the order the checks run. */
const CODE_ADVICE: Readonly<Record<(typeof LICENSE_CODES)[number], string>> = {
  VALID: "Run. Store the signed token (the SDK does) and send heartbeats.",
  NOT_FOUND: "Ask for a key. After a key rotation the old key answers this once its grace is over.",
  SUSPENDED: "Stop licensed features; the owner contacts support.",
  EXPIRED: "Stop licensed features; the owner renews.",
  MACHINE_REMOVED: "Stop; the owner removed this device in the dashboard and can allow it again there.",
  TOO_MANY_MACHINES: "Stop; every slot is taken. The dashboard shows the owner this device and offers to free a slot.",
  ACTIVATION_LIMIT: "Stop and try again later: too many new machines on this license in 24 hours.",
  NOT_ACTIVATED: "Validate (activate) first: heartbeats, usage, checkout and deactivation need an activated machine.",
  LICENSE_FILES_DISABLED:
    "Checkout and offline activation only: run online, or ask the owner to turn license files on for this license.",
};

function licenseCodesTable(): string {
  const rows = LICENSE_CODES.map(
    (code) => `| \`${code}\` | ${cell(LICENSE_CODE_MESSAGES[code])} | ${cell(CODE_ADVICE[code])} |`,
  );
  return ["| Code | Message | What the app does |", "|---|---|---|", ...rows].join("\n");
}

/** The privacy policy's retention table: what the service keeps and for how long (the retention job's numbers). */
function retentionTable(): string {
  const rows = RETENTION_POLICY_ROWS.map(([data, keptFor]) => `| ${cell(data)} | ${cell(keptFor)} |`);
  return ["| Data | Kept for |", "|---|---|", ...rows].join("\n");
}

const seconds = (value: number) => () => formatDuration(value);

const { issueTracker, chat, wiki } = TEAM_INTEGRATIONS;

export const CONTENT_TOKENS: Readonly<Record<string, () => string>> = {
  "executor-clis": () => EXECUTOR_CLI_NAMES,
  "legal-name": () => LEGAL_ENTITY.name,
  "legal-address": () => LEGAL_ENTITY.postalAddress,
  "governing-law": () => LEGAL_ENTITY.governingLaw,
  "legal-courts": () => LEGAL_ENTITY.courts,
  "support-email": () => BRAND.supportEmail,
  "executor-clis-table": executorClisTable,
  "issue-tracker": () => issueTracker.name,
  chat: () => chat.name,
  wiki: () => wiki.name,
  "team-integrations": () => TEAM_INTEGRATION_NAMES,
  "plans-table": plansTable,
  "quota-note": () => QUOTA_NOTE,
  "seats-table": seatsTable,
  "license-codes-table": licenseCodesTable,
  "drift-allowance": seconds(SEAT_RULES.driftAllowanceSeconds),
  "revival-window": seconds(SEAT_RULES.revivalWindowSeconds),
  "deactivations-per-day": () => String(SEAT_RULES.deactivationsPerDay),
  "activations-per-day": () => String(SEAT_RULES.activationsPerDay),
  "refusals-kept": () => String(SEAT_RULES.refusalsKept),
  "key-rotation-grace": seconds(SEAT_RULES.keyRotationGraceSeconds),
  "license-file-default": seconds(SEAT_RULES.licenseFileDefaultTtlSeconds),
  "license-file-max": seconds(SEAT_RULES.licenseFileMaxTtlSeconds),
  "license-file-default-days": () => `${SEAT_RULES.licenseFileDefaultTtlSeconds / 86_400}d`,
  "signed-answer-max-age": seconds(SEAT_RULES.signedAnswerMaxAgeSeconds),
  "offline-grace": seconds(CLIENT_CONFIGURATION.offlineGraceSeconds),
  "usage-report-interval": seconds(CLIENT_CONFIGURATION.usageReportIntervalSeconds),
  "free-heartbeat": seconds(TIERS.free.heartbeatIntervalSeconds),
  "retention-table": retentionTable,
  "privacy-request-days": () => String(RETENTION_DAYS.privacyRequestAnswer),
  "backup-days": () => String(RETENTION_DAYS.backupsRollOver),
  "audit-network": () => AUDIT_NETWORK_TEXT,
  "free-inactive-after": seconds(inactiveAfterSeconds(TIERS.free.heartbeatIntervalSeconds)),
  // Execution leases (contracts/executions.ts, decision 0048).
  "executions-table": executionsTable,
  "execution-rule": executionRuleText,
  "execution-heartbeat": seconds(EXECUTION_RULES.heartbeatIntervalSeconds),
  "execution-expires-after": seconds(executionExpiresAfterSeconds()),
  "execution-drift-allowance": seconds(EXECUTION_RULES.driftAllowanceSeconds),
  "execution-revival-window": seconds(EXECUTION_RULES.revivalWindowSeconds),
  "execution-holders-named": () => String(EXECUTION_RULES.holdersNamed),
  "execution-unlimited-per-machine": () => String(EXECUTION_RULES.maxPerMachineUnlimited),
  "execution-exit-wait": seconds(EXECUTION_EXIT_WAIT_MS / 1000),
  "free-executions": () => limitText(TIERS.free.features.maxConcurrentExecutions),
};

export function expandContentTokens(markdown: string, where: string): string {
  return markdown.replace(/\{\{site:([a-z-]+)\}\}/g, (_, name: string) => {
    const token = CONTENT_TOKENS[name];
    if (!token) throw new Error(`${where}: unknown content token {{site:${name}}}`);
    return token();
  });
}
