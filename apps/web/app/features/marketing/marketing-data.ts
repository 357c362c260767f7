/** Spec section 2, "Home page": the landing page's facts in one place. */
import { EXECUTOR_CLIS, TEAM_INTEGRATIONS, TEST_EXECUTOR } from "@flotilla/contracts/integrations";

export const HERO_CHIPS = [
  "Agent coordination",
  "Git worktree per task",
  "Shared memory",
  "MCP servers",
  "Local embeddings",
  "Spec-driven coding",
] as const;

/** Marketing sample shown in the hero's mock task dashboard. */
export const MOCK_DASHBOARD_STATS = [
  { label: "Active tasks", value: 12 },
  { label: "AI agents", value: 3 },
  { label: "Completed", value: 24 },
] as const;

export type FeatureIcon = "network" | "git-branch" | "brain" | "plug" | "scroll" | "code";

export const FEATURES: readonly { icon: FeatureIcon; title: string; body: string }[] = [
  {
    icon: "network",
    title: "Agent coordination",
    body: "Assign tasks to several agents at once. Dependencies decide what runs next, priorities decide what runs first, and nothing steps on anything else.",
  },
  {
    icon: "git-branch",
    title: "A worktree per task",
    body: "Every task gets its own Git worktree and branch, so agents work in parallel on a clean checkout. Worktrees are cleaned up when the task completes.",
  },
  {
    icon: "brain",
    title: "Shared agent memory",
    body: "Project, agent, task and session memory, ranked by importance and recency, so agents stop relearning your codebase on every task.",
  },
  {
    icon: "plug",
    title: "MCP servers built in",
    body: "Memory, file system and web API servers ship with the app. Add your own: they start with the task, are health-checked, and stop when it ends.",
  },
  {
    icon: "scroll",
    title: "Prompts, rules and specs",
    body: "Reusable prompts, project and agent rules, and spec-driven coding keep every agent on the conventions your team already agreed on.",
  },
  {
    icon: "code",
    title: "A real code editor",
    body: "Review what agents wrote in the built-in editor with a file explorer and syntax highlighting, or open any file in your own editor.",
  },
];

export interface Integration {
  name: string;
  detail: string;
}

const makerOf = (maker: string) => (maker === "open source" ? "The open-source" : `${maker}'s`);

/** Home page "Integrations": the supported tools by name, from the one list in contracts (decision 0021). */
export const INTEGRATION_GROUPS: readonly { title: string; items: readonly Integration[] }[] = [
  {
    title: "Executors",
    items: [
      ...EXECUTOR_CLIS.map((cli) => ({
        name: cli.name,
        detail: `${makerOf(cli.maker)} coding CLI, run in the task's worktree`,
      })),
      { name: TEST_EXECUTOR.name, detail: "A no-cost executor for testing and debugging flows" },
    ],
  },
  {
    title: "Around every task",
    items: [
      { name: "Git", detail: "Worktrees, branches and merges, done for you" },
      { name: "Your code editor", detail: "Open any file in the editor you already use" },
      { name: "MCP servers", detail: "Any Model Context Protocol server you configure" },
    ],
  },
  {
    title: "Team tools, with Hybrid Pro",
    items: [
      { name: TEAM_INTEGRATIONS.issueTracker.name, detail: "Issue tracker: turn issues into tasks and report back" },
      { name: TEAM_INTEGRATIONS.chat.name, detail: "Chat: task updates where your team already talks" },
      { name: TEAM_INTEGRATIONS.wiki.name, detail: "Wiki: feed design docs and runbooks into agent memory" },
    ],
  },
];

export type PlatformStatus = "available" | "beta-signup" | "coming-soon";

export interface PlatformCard {
  name: string;
  status: PlatformStatus;
  label: string;
  description: string;
}

export const PLATFORMS: readonly PlatformCard[] = [
  {
    name: "macOS Desktop",
    status: "beta-signup",
    label: "Join Beta",
    description: "Native app for Apple silicon and Intel. The beta is open to early-access members now.",
  },
  {
    name: "Windows Desktop",
    status: "coming-soon",
    label: "Q1 2026",
    description: "The same command centre on Windows 10 and 11, with WSL-aware worktrees.",
  },
  {
    name: "Web Application",
    status: "coming-soon",
    label: "Q2 2026",
    description: "Watch and steer your agents from any browser, paired with a desktop or self-hosted runner.",
  },
];

export const CAPABILITY_PLATFORMS = ["Web", "Windows", "macOS"] as const;
const WEB_ONLY_GAPS = new Set(["Offline Mode", "File System Integration", "Native Performance"]);
const CAPABILITY_NAMES = [
  "Agent Coordination",
  "Git Worktrees",
  "Shared Memory",
  "MCP Servers",
  "Local Embeddings",
  "Built-in Code Editor",
  "Offline Mode",
  "File System Integration",
  "Native Performance",
] as const;

/** Offline Mode, File System Integration and Native Performance are unavailable on the web only. */
export const CAPABILITIES = CAPABILITY_NAMES.map((name) => ({
  name,
  availability: { Web: !WEB_ONLY_GAPS.has(name), Windows: true, macOS: true },
}));

export type RoadmapStatus = "planned" | "in-progress";

export const TIMELINE: readonly { quarter: string; title: string; status: RoadmapStatus }[] = [
  { quarter: "Q3 2025", title: "macOS beta testing", status: "planned" },
  { quarter: "Q4 2025", title: "macOS and Linux launch", status: "planned" },
  { quarter: "Q1 2026", title: "Windows desktop launch", status: "planned" },
  { quarter: "Q2 2026", title: "Web platform and VSCode extension", status: "planned" },
  { quarter: "Q3 2026", title: "Self-hosted AI models", status: "planned" },
];

export const DEMO_VIDEO = {
  src: "/video/flotilla-tour.mp4",
  poster: "/video/flotilla-tour-poster.webp",
  /** The burned-in captions as text (scripts/video/captions.mjs writes it from the tour's own caption table). */
  captions: "/video/flotilla-tour.en.vtt",
  title: "Flotilla product tour",
} as const;
