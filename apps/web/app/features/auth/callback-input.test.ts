import { describe, expect, it } from "vitest";
import { readCallbackInput } from "./callback-input";

describe("readCallbackInput", () => {
  it("an error parameter wins over everything else", () => {
    expect(readCallbackInput("/auth/callback", "?error=access_denied&code=abc&token=t")).toEqual({
      kind: "error",
      error: "access_denied",
    });
  });

  it("shows the error code only: a link's free text never appears on the site", () => {
    expect(
      readCallbackInput("/auth/callback", "?error=access_denied&error_description=Your+account+is+locked,+call+555"),
    ).toEqual({ kind: "error", error: "access_denied" });
    expect(readCallbackInput("/auth/callback", "?error=Your+account+is+locked,+call+555-0100")).toEqual({
      kind: "error",
      error: "unknown_error",
    });
  });

  it("reads a token in the address", () => {
    expect(readCallbackInput("/auth/callback", "?token=abc&code=x")).toEqual({ kind: "token", token: "abc" });
  });

  it("reads a code with its state and issuer", () => {
    expect(readCallbackInput("/auth/callback", "?code=c1&state=s1&iss=http%3A%2F%2Fidp")).toEqual({
      kind: "code",
      code: "c1",
      state: "s1",
      iss: "http://idp",
    });
    expect(readCallbackInput("/auth/callback", "?code=c2")).toEqual({ kind: "code", code: "c2" });
  });

  it("reads an encoded state in the path, even an undecodable one", () => {
    expect(readCallbackInput("/auth/callback/%2Fdocs", "")).toEqual({ kind: "path-state", state: "/docs" });
    expect(readCallbackInput("/auth/callback/%E0%A4%A", "")).toEqual({ kind: "path-state", state: null });
  });

  it("reports nothing when nothing arrived", () => {
    expect(readCallbackInput("/auth/callback", "")).toEqual({ kind: "none" });
    expect(readCallbackInput("/auth/callback/", "")).toEqual({ kind: "none" });
  });
});
