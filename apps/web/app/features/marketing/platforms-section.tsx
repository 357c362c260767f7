import { Check, Globe, Laptop, Minus, Monitor } from "lucide-react";
import { buttonClass } from "../../components/button";
import { SectionHeading } from "../../components/section-heading";
import { CARD_PLATFORM } from "../downloads/open-platforms";
import { CAPABILITIES, CAPABILITY_PLATFORMS, PLATFORMS, type PlatformCard, TIMELINE } from "./marketing-data";

const PLATFORM_ICONS = { "macOS Desktop": Laptop, "Windows Desktop": Monitor, "Web Application": Globe } as const;

function PlatformCardView({ platform, onJoin }: { platform: PlatformCard; onJoin: () => void }) {
  const Icon = PLATFORM_ICONS[platform.name as keyof typeof PLATFORM_ICONS] ?? Monitor;
  const comingSoon = platform.status === "coming-soon";
  return (
    <li
      className="flex flex-col rounded-2xl border border-border bg-bg-elevated p-6"
      data-status={platform.status}
      data-platform={CARD_PLATFORM[platform.name]}
    >
      <div className="flex items-center justify-between">
        <span className="inline-flex size-10 items-center justify-center rounded-xl border border-border bg-bg-subtle">
          <Icon className="size-5" aria-hidden="true" />
        </span>
        <span
          data-platform-label
          className={`rounded-full px-2.5 py-0.5 text-xs font-medium ${
            comingSoon ? "bg-bg-subtle text-fg-muted" : "bg-emerald-500/10 text-emerald-700 dark:text-emerald-300"
          }`}
        >
          {platform.label}
        </span>
      </div>
      <h3 className="mt-5 text-lg font-semibold">{platform.name}</h3>
      <p className="mt-2 flex-1 text-sm leading-6 text-fg-muted">{platform.description}</p>
      {comingSoon ? (
        <div
          data-platform-action
          aria-disabled="true"
          className="mt-6 rounded-lg border border-dashed border-border py-2.5 text-center text-sm font-medium text-fg-muted"
        >
          Coming Soon
        </div>
      ) : (
        <button
          type="button"
          className={buttonClass("primary", "md", "mt-6 w-full")}
          onClick={onJoin}
          data-platform-action
          data-island="opener"
          data-opens="signup"
        >
          {platform.label}
        </button>
      )}
    </li>
  );
}

export function PlatformsSection({ onJoin }: { onJoin: () => void }) {
  return (
    <section
      id="roadmap"
      aria-labelledby="roadmap-title"
      className="below-fold [--fold-height:154rem] md:[--fold-height:109rem] lg:[--fold-height:75rem] mx-auto max-w-7xl px-4 py-24 sm:px-6 lg:px-8"
    >
      <SectionHeading
        id="roadmap-title"
        eyebrow="Platforms & roadmap"
        title="Desktop first, everywhere next"
        lead="Agents need your files, your toolchain and your Git. That is why Flotilla starts on the desktop."
      />
      {/* The platforms island (app/islands/platforms.ts) opens the cards of platforms with downloads open. */}
      <ul className="mt-14 grid gap-5 md:grid-cols-3" data-island="platforms">
        {PLATFORMS.map((platform) => (
          <PlatformCardView key={platform.name} platform={platform} onJoin={onJoin} />
        ))}
      </ul>

      <div className="mt-16 grid gap-10 lg:grid-cols-2">
        <div className="overflow-x-auto rounded-2xl border border-border bg-bg-elevated">
          <table className="w-full text-left text-sm">
            <caption className="px-5 pt-5 text-left text-base font-semibold">Capabilities by platform</caption>
            <thead>
              <tr className="border-b border-border text-fg-muted">
                <th scope="col" className="px-5 py-3 font-medium">
                  Capability
                </th>
                {CAPABILITY_PLATFORMS.map((platform) => (
                  <th key={platform} scope="col" className="px-3 py-3 text-center font-medium">
                    {platform}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {CAPABILITIES.map((capability) => (
                <tr key={capability.name} className="border-b border-border last:border-0">
                  <th scope="row" className="px-5 py-2.5 font-normal">
                    {capability.name}
                  </th>
                  {CAPABILITY_PLATFORMS.map((platform) => (
                    <td key={platform} className="px-3 py-2.5 text-center">
                      {capability.availability[platform] ? (
                        <Check
                          className="mx-auto size-4 text-emerald-600 dark:text-emerald-400"
                          aria-label="Available"
                        />
                      ) : (
                        <Minus className="mx-auto size-4 text-fg-muted" aria-label="Not available" />
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>

        <div>
          <h3 className="text-base font-semibold">Timeline</h3>
          <ol className="mt-6 space-y-0 border-l border-border">
            {TIMELINE.map((entry) => (
              <li key={entry.quarter} className="relative pb-7 pl-6 last:pb-0">
                <span className="absolute -left-[5px] top-1.5 size-2.5 rounded-full border-2 border-bg bg-accent" />
                <p className="font-mono text-xs text-fg-muted">{entry.quarter}</p>
                <p className="mt-1 font-medium">{entry.title}</p>
                <p className="mt-1 text-xs uppercase tracking-wider text-fg-muted" data-status={entry.status}>
                  {entry.status === "planned" ? "Planned" : "In progress"}
                </p>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
