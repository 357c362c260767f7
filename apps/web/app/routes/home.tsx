import { BRAND } from "@flotilla/contracts";
import { useState } from "react";
import { Link } from "react-router";
import { buttonClass } from "../components/button";
import { SectionHeading } from "../components/section-heading";
import { FeaturesSection } from "../features/marketing/features-section";
import { Hero } from "../features/marketing/hero";
import { IntegrationsSection } from "../features/marketing/integrations-section";
import { PlatformsSection } from "../features/marketing/platforms-section";
import { VideoDialog } from "../features/marketing/video-dialog";
import { PlanGrid } from "../features/pricing/plan-grid";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import { useOpenSignup } from "../lib/signup-opener";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const meta = () =>
  seo({
    title: `${BRAND.name} — ${BRAND.tagline}`,
    description:
      "Run local AI coding agents on your tasks, each in its own Git worktree, with shared memory, MCP servers and human review. Join the macOS beta.",
    path: "/",
  });

export default function Home() {
  const openSignup = useOpenSignup();
  const [videoOpen, setVideoOpen] = useState(false);
  return (
    <>
      <Hero onJoin={openSignup} onWatch={() => setVideoOpen(true)} />
      <FeaturesSection />
      <IntegrationsSection />
      <PlatformsSection onJoin={openSignup} />
      <section
        id="pricing"
        aria-labelledby="pricing-title"
        className="below-fold [--fold-height:87rem] md:[--fold-height:57rem] lg:[--fold-height:59rem] border-t border-border bg-bg-subtle"
      >
        <div className="mx-auto max-w-5xl px-4 py-24 sm:px-6 lg:px-8">
          <SectionHeading
            id="pricing-title"
            eyebrow="Pricing"
            title="Free while you self-host"
            lead="Run Flotilla on your own machine for free. Paid plans add parallel executions, hosted executors and team features."
          />
          <div className="mt-12">
            <PlanGrid onJoin={openSignup} limit={2} />
          </div>
          <p className="mt-6 text-center">
            <Link to="/pricing" className={buttonClass("secondary", "md")}>
              Compare all plans
            </Link>
          </p>
        </div>
      </section>
      <section className="below-fold [--fold-height:39rem] md:[--fold-height:32rem] lg:[--fold-height:32rem] mx-auto max-w-7xl px-4 py-24 sm:px-6 lg:px-8">
        <div className="relative overflow-hidden rounded-3xl bg-[#0b1020] px-6 py-16 text-center text-white sm:px-16">
          <div className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,rgba(56,189,248,0.25),transparent_60%)]" />
          <h2 className="relative text-3xl font-semibold tracking-tight text-balance sm:text-4xl">
            Put your agents to work this week
          </h2>
          <p className="relative mx-auto mt-4 max-w-xl text-slate-300">
            Join the macOS beta. Bring a repository and one local coding CLI; Flotilla does the rest.
          </p>
          <div className="relative mt-8 flex flex-wrap justify-center gap-3">
            <button
              type="button"
              className={buttonClass("primary", "lg")}
              onClick={openSignup}
              data-island="opener"
              data-opens="signup"
            >
              Get Early Access
            </button>
            <Link
              to="/docs/getting-started"
              className={buttonClass("secondary", "lg", "border-white/15 bg-white/5 text-white hover:bg-white/10")}
            >
              Read the docs
            </Link>
          </div>
        </div>
      </section>
      <VideoDialog open={videoOpen} onClose={() => setVideoOpen(false)} />
    </>
  );
}
