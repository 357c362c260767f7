import { PLANS } from "@flotilla/contracts";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { PlanGrid } from "./plan-grid";

describe("PlanGrid", () => {
  it("renders every plan of the table with its name and headline price", () => {
    render(<PlanGrid onJoin={() => {}} />);
    const cards = screen.getAllByRole("listitem").filter((li) => li.dataset.tier);
    expect(cards.map((card) => card.dataset.tier)).toEqual(PLANS.map((plan) => plan.tier));
    expect(within(cards[0]!).getByRole("heading", { name: "Self Hosted Free" })).toBeInTheDocument();
    expect(cards[0]).toHaveTextContent("$0");
    expect(cards[1]).toHaveTextContent("$10/month");
    expect(cards[1]).toHaveTextContent("or $100/year, or lifetime $350");
    expect(cards[2]).toHaveTextContent("(850 total)");
  });

  it('says "Quotas add up monthly." under the plans that have a quota, and only there', () => {
    render(<PlanGrid onJoin={() => {}} />);
    const cards = screen.getAllByRole("listitem").filter((li) => li.dataset.tier);
    for (const card of cards) {
      const plan = PLANS.find((p) => p.tier === card.dataset.tier)!;
      if (plan.quota) expect(card).toHaveTextContent("Quotas add up monthly.");
      else expect(card).not.toHaveTextContent("Quotas add up monthly.");
    }
    expect(screen.getAllByText("Quotas add up monthly.")).toHaveLength(PLANS.filter((p) => p.quota).length);
  });

  it("shows no quota note on the home page's two self-hosted plans", () => {
    render(<PlanGrid onJoin={() => {}} limit={2} />);
    expect(screen.queryByText("Quotas add up monthly.")).not.toBeInTheDocument();
  });

  it("marks Free as recommended with Join Beta, and every paid plan as a disabled Coming Soon", async () => {
    const onJoin = vi.fn();
    render(<PlanGrid onJoin={onJoin} />);
    expect(screen.getAllByText("Recommended")).toHaveLength(1);
    const comingSoon = screen.getAllByRole("button", { name: "Coming Soon" });
    expect(comingSoon).toHaveLength(4);
    for (const button of comingSoon) expect(button).toBeDisabled();
    await userEvent.click(screen.getByRole("button", { name: "Join Beta" }));
    expect(onJoin).toHaveBeenCalledOnce();
  });
});
