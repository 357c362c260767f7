import { describe, expect, it } from "vitest";
import { DOCS_GROUPS, DOCS_PAGES, docGroupOf, resolveDocSlug } from "./docs";

describe("docs routing", () => {
  it("lists ten pages in three groups", () => {
    expect(DOCS_PAGES).toHaveLength(10);
    expect(DOCS_GROUPS.map((g) => g.title)).toEqual(["Getting Started", "Core Concepts", "Advanced Features"]);
  });

  it("resolves each known page to itself", () => {
    for (const page of DOCS_PAGES) expect(resolveDocSlug(page.slug)).toBe(page.slug);
    expect(resolveDocSlug("agents/")).toBe("agents");
  });

  it("shows getting-started for /docs and any unknown path", () => {
    expect(resolveDocSlug(undefined)).toBe("getting-started");
    expect(resolveDocSlug("")).toBe("getting-started");
    expect(resolveDocSlug("no-such-page")).toBe("getting-started");
    expect(resolveDocSlug("agents/extra")).toBe("getting-started");
    expect(resolveDocSlug("../etc/passwd")).toBe("getting-started");
  });
});

describe("docs breadcrumb", () => {
  it("names the page's sidebar group, not the page's sidebar label", () => {
    expect(docGroupOf("getting-started")?.title).toBe("Getting Started");
    expect(docGroupOf("agents")?.title).toBe("Core Concepts");
    expect(docGroupOf("pricing")?.title).toBe("Advanced Features");
    expect(docGroupOf("nope")).toBeUndefined();
  });
});
