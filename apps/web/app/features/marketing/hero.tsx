import { Play, Sparkles } from "lucide-react";
import { buttonClass } from "../../components/button";
import { DEMO_VIDEO, HERO_CHIPS } from "./marketing-data";
import { MockDashboard } from "./mock-dashboard";

export function Hero({ onJoin, onWatch }: { onJoin: () => void; onWatch: () => void }) {
  return (
    <section className="relative overflow-hidden">
      <div className="bg-grid pointer-events-none absolute inset-0 [mask-image:radial-gradient(ellipse_at_top,black_20%,transparent_70%)]" />
      <div className="pointer-events-none absolute -top-40 left-1/2 h-[36rem] w-[60rem] -translate-x-1/2 rounded-full bg-[radial-gradient(closest-side,var(--glow),transparent)]" />
      <div className="relative mx-auto grid max-w-7xl items-center gap-14 px-4 pb-20 pt-16 sm:px-6 sm:pt-24 lg:grid-cols-[1.05fr_1fr] lg:px-8 lg:pb-28">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full border border-border bg-bg-elevated/70 px-3 py-1 text-xs font-medium text-fg-muted">
            <Sparkles className="size-3.5 text-accent" aria-hidden="true" />
            macOS beta · early access is open
          </p>
          <h1 className="mt-6 text-4xl font-semibold leading-[1.08] tracking-tight text-balance sm:text-5xl lg:text-6xl">
            The command centre for your <span className="text-gradient">AI coding agents</span>
          </h1>
          <p className="mt-6 max-w-xl text-lg leading-8 text-fg-muted">
            Hand tasks to a fleet of local agents. Each works in its own Git worktree, shares what it learns through
            agent memory, and waits for your review before anything merges.
          </p>
          <ul className="mt-6 flex flex-wrap gap-2" aria-label="Highlights">
            {HERO_CHIPS.map((chip) => (
              <li
                key={chip}
                className="rounded-full border border-border bg-bg-elevated px-3 py-1 text-xs font-medium text-fg-muted"
              >
                {chip}
              </li>
            ))}
          </ul>
          <div className="mt-9 flex flex-wrap items-center gap-3">
            <button
              type="button"
              className={buttonClass("primary", "lg")}
              onClick={onJoin}
              data-island="opener"
              data-opens="signup"
            >
              Get Early Access
            </button>
            <button
              type="button"
              className={buttonClass("secondary", "lg")}
              onClick={onWatch}
              data-island="opener"
              data-opens="video"
            >
              <Play className="size-4" aria-hidden="true" />
              Watch Demo
            </button>
          </div>
          <p className="mt-5 text-sm text-fg-muted">
            Free for self-hosted use · No API keys required ·{" "}
            <a href={DEMO_VIDEO.src} target="_blank" rel="noopener" className="font-medium text-accent hover:underline">
              Watch Demo Video
            </a>
          </p>
        </div>
        <MockDashboard />
      </div>
    </section>
  );
}
