import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ApiReference } from "./api-reference";
import type { OperationGroup } from "./openapi";

const GROUPS: OperationGroup[] = [
  {
    tag: "Licensing",
    operations: [
      {
        method: "POST",
        path: "/api/license/deactivate",
        tag: "Licensing",
        summary: "The app frees its own slot",
        parameters: [],
        responses: [
          { status: "200", description: "Default Response" },
          { status: "404", description: "NOT_FOUND: no license has this key" },
          {
            status: "409",
            description: "LICENSE_FILE_ACTIVE: the machine holds a license file",
            meaningHtml: "<p><code>LICENSE_FILE_ACTIVE</code>: the machine holds a license file</p>",
          },
          {
            status: "default",
            description: "- 500 INTERNAL_ERROR: the service failed",
            meaningHtml: "<ul><li>500 INTERNAL_ERROR: the service failed</li></ul>",
          },
        ],
      },
    ],
  },
];

describe("API reference: an operation's answers", () => {
  it("lists the operation's own answers with their meanings, and `default` as 'Other failures'", () => {
    render(<ApiReference groups={GROUPS} />);
    const answers = screen.getByRole("article").querySelector("dl")!;
    const terms = within(answers)
      .getAllByRole("term")
      .map((term) => term.textContent);
    expect(terms).toEqual(["200", "404", "409", "Other failures"]);
    expect(answers).toHaveTextContent("NOT_FOUND: no license has this key");
    // Meanings rendered from their Markdown: code spans, not backticks.
    expect(answers.querySelector("code")).toHaveTextContent("LICENSE_FILE_ACTIVE");
    expect(answers).toHaveTextContent("500 INTERNAL_ERROR: the service failed");
    expect(answers).not.toHaveTextContent("default");
    expect(answers).not.toHaveTextContent("Default Response");
  });
});
