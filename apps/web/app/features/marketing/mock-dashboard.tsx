import { Bot, CheckCircle2, CircleDot, GitBranch, Loader2 } from "lucide-react";
import { MOCK_DASHBOARD_STATS } from "./marketing-data";

const TASKS = [
  {
    id: 142,
    title: "Add rate limiting to the public API",
    agent: "Atlas",
    status: "Running",
    priority: "High",
    branch: "flotilla/142-rate-limit",
  },
  {
    id: 139,
    title: "Migrate settings page to the new form kit",
    agent: "Nova",
    status: "Review",
    priority: "Medium",
    branch: "flotilla/139-settings-form",
  },
  {
    id: 137,
    title: "Fix flaky worktree cleanup test",
    agent: "Echo",
    status: "Running",
    priority: "Critical",
    branch: "flotilla/137-cleanup-flake",
  },
  {
    id: 131,
    title: "Document the memory retention policy",
    agent: "Atlas",
    status: "Completed",
    priority: "Low",
    branch: "flotilla/131-memory-docs",
  },
] as const;

const STATUS_STYLE: Record<string, string> = {
  Running: "text-sky-300 bg-sky-400/10 ring-sky-400/30",
  Review: "text-amber-300 bg-amber-400/10 ring-amber-400/30",
  Completed: "text-emerald-300 bg-emerald-400/10 ring-emerald-400/30",
};
const PRIORITY_DOT: Record<string, string> = {
  Critical: "bg-rose-400",
  High: "bg-orange-400",
  Medium: "bg-sky-400",
  Low: "bg-slate-400",
};

/** A marketing sample of the desktop app's task board. Always dark, like the app itself. */
export function MockDashboard() {
  return (
    <figure
      className="relative overflow-hidden rounded-2xl border border-white/10 bg-[#0b1020] text-slate-200 shadow-2xl shadow-indigo-950/40"
      aria-label="Sample Flotilla task dashboard"
    >
      <div className="flex items-center gap-2 border-b border-white/10 px-4 py-3">
        <span className="size-3 rounded-full bg-[#ff5f57]" />
        <span className="size-3 rounded-full bg-[#febc2e]" />
        <span className="size-3 rounded-full bg-[#28c840]" />
        <span className="ml-3 font-mono text-xs text-slate-400">flotilla — acme/web-app</span>
      </div>
      <div className="grid grid-cols-3 gap-px bg-white/10">
        {MOCK_DASHBOARD_STATS.map((stat) => (
          <div key={stat.label} className="bg-[#0b1020] px-4 py-4 sm:px-5">
            <p className="text-2xl font-semibold tabular-nums text-white sm:text-3xl">{stat.value}</p>
            <p className="mt-1 text-xs text-slate-400">{stat.label}</p>
          </div>
        ))}
      </div>
      <ul className="divide-y divide-white/5">
        {TASKS.map((task) => (
          <li key={task.id} className="flex items-center gap-3 px-4 py-3 sm:px-5">
            <span className={`size-2 shrink-0 rounded-full ${PRIORITY_DOT[task.priority]}`} title={task.priority} />
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm text-slate-100">
                <span className="mr-2 font-mono text-xs text-slate-400">#{task.id}</span>
                {task.title}
              </p>
              <p className="mt-1 flex items-center gap-3 text-xs text-slate-400">
                <span className="inline-flex items-center gap-1">
                  <Bot className="size-3.5" aria-hidden="true" />
                  {task.agent}
                </span>
                <span className="hidden items-center gap-1 truncate font-mono sm:inline-flex">
                  <GitBranch className="size-3.5" aria-hidden="true" />
                  {task.branch}
                </span>
              </p>
            </div>
            <span
              className={`inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${STATUS_STYLE[task.status]}`}
            >
              {task.status === "Running" && <Loader2 className="size-3 animate-spin" aria-hidden="true" />}
              {task.status === "Review" && <CircleDot className="size-3" aria-hidden="true" />}
              {task.status === "Completed" && <CheckCircle2 className="size-3" aria-hidden="true" />}
              {task.status}
            </span>
          </li>
        ))}
      </ul>
      <figcaption className="sr-only">12 active tasks, 3 AI agents, 24 completed (sample data)</figcaption>
    </figure>
  );
}
