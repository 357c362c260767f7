import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { UserMenu } from "./user-menu";

const USER = { id: "c1", email: "ada@example.com", name: "Ada Lovelace", avatar_url: null, is_admin: false };

describe("UserMenu: sign out everywhere", () => {
  it("asks first, naming what happens; only the confirmation ends the sessions", async () => {
    const onLogoutEverywhere = vi.fn().mockResolvedValue(undefined);
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <UserMenu user={USER} onLogout={vi.fn()} onLogoutEverywhere={onLogoutEverywhere} />
      </MemoryRouter>,
    );
    await user.click(screen.getByRole("button", { name: "Account menu for Ada Lovelace" }));
    await user.click(screen.getByRole("button", { name: "Sign out everywhere" }));
    expect(onLogoutEverywhere).not.toHaveBeenCalled();
    expect(screen.getByText(/every browser and device, this one included/)).toBeVisible();
    expect(screen.getByRole("button", { name: "Sign out all" })).toHaveFocus();

    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByText(/every browser and device/)).not.toBeVisible();
    expect(onLogoutEverywhere).not.toHaveBeenCalled();

    await user.click(screen.getByRole("button", { name: "Sign out everywhere" }));
    await user.click(screen.getByRole("button", { name: "Sign out all" }));
    expect(onLogoutEverywhere).toHaveBeenCalledOnce();
  });
});

describe("UserMenu: the console", () => {
  async function openMenu(isAdmin: boolean) {
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <UserMenu user={{ ...USER, is_admin: isAdmin }} onLogout={vi.fn()} onLogoutEverywhere={vi.fn()} />
      </MemoryRouter>,
    );
    await user.click(screen.getByRole("button", { name: "Account menu for Ada Lovelace" }));
  }

  it("links an admin to the console, after Dashboard", async () => {
    await openMenu(true);
    const links = screen.getAllByRole("link").map((link) => [link.textContent, link.getAttribute("href")]);
    expect(links).toEqual([
      ["Dashboard", "/dashboard"],
      ["Console", "/admin"],
    ]);
  });

  it("shows a customer no console link", async () => {
    await openMenu(false);
    expect(screen.queryByRole("link", { name: "Console" })).toBeNull();
    expect(screen.getByRole("link", { name: "Dashboard" })).toBeVisible();
  });
});
