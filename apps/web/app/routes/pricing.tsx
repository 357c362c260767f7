import { Link } from "react-router";
import { PlanGrid } from "../features/pricing/plan-grid";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import { useOpenSignup } from "../lib/signup-opener";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const meta = () =>
  seo({
    title: "Pricing",
    description:
      "Self Hosted Free at $0 with one concurrent execution; Plus, Hybrid Pro, Pro+ and Ultra plans add parallel agents, hosted executors and team features.",
    path: "/pricing",
  });

export default function Pricing() {
  const openSignup = useOpenSignup();
  return (
    <div className="mx-auto max-w-7xl px-4 py-20 sm:px-6 lg:px-8">
      <header className="mx-auto max-w-2xl text-center">
        <p className="text-sm font-semibold uppercase tracking-wider text-accent">Pricing</p>
        <h1 className="mt-3 text-4xl font-semibold tracking-tight sm:text-5xl">
          Simple plans that grow with your fleet
        </h1>
        <p className="mt-5 text-lg leading-8 text-fg-muted">
          Start free on your own machine. Paid plans are coming soon; early-access members hear first.
        </p>
      </header>
      <section className="mt-16" aria-labelledby="plans-heading">
        {/* The plan cards' names are h3s, as on the home page: the outline needs a level between. */}
        <h2 id="plans-heading" className="sr-only">
          Plans and prices
        </h2>
        <PlanGrid onJoin={openSignup} />
      </section>
      <p className="mt-10 text-center text-sm text-fg-muted">
        Questions about licenses and devices? Read the{" "}
        <Link to="/docs/pricing" className="text-accent underline underline-offset-2">
          pricing overview in the docs
        </Link>{" "}
        or the{" "}
        <Link to="/blog/pricing-philosophy" className="text-accent underline underline-offset-2">
          story behind our pricing
        </Link>
        .
      </p>
    </div>
  );
}
