import { describe, expect, it } from "vitest";
import { problemOf } from "../../api/errors";
import { needsConfirmation, scopeErrors } from "./scopes";

describe("scopeErrors", () => {
  it("puts each scopes[i] message under the scope sent at i", () => {
    const p = problemOf({
      error: {
        code: "VALIDATION_ERROR",
        message: "The request is not valid.",
        details: [
          { field: "body.scopes[1]", message: "is beyond what your role (issuer) allows" },
          { field: "body.name", message: "must be 1 to 100 characters" },
          { field: "body.scopes[7]", message: "out of range" },
        ],
      },
    });
    expect(scopeErrors(["events:read", "webhooks:manage"], p.fields)).toEqual({
      "webhooks:manage": "is beyond what your role (issuer) allows",
    });
  });
});

describe("needsConfirmation", () => {
  const late = problemOf({
    error: {
      code: "VALIDATION_ERROR",
      message: "The request is not valid.",
      details: [{ field: "body.currentPassword", message: "is required: the session signed in more than 5 minutes ago" }],
    },
  });
  it("asks for the password when none was sent", () => {
    expect(needsConfirmation(late, false)).toBe(true);
  });
  it("shows the refusal of a password that was sent", () => {
    expect(needsConfirmation(late, true)).toBe(false);
  });
  it("is not about other refusals", () => {
    expect(needsConfirmation({ code: "INSUFFICIENT_ROLE", fields: {} }, false)).toBe(false);
  });
});
