import { describe, expect, it } from "vitest";
import { problemOf } from "./errors";

describe("problemOf", () => {
  it("puts each detail under the field it names, without the body. prefix", () => {
    const p = problemOf({
      error: {
        code: "VALIDATION_ERROR",
        message: "The request is not valid.",
        details: [
          { field: "body.email", message: "must be an email address" },
          { field: "body.email", message: "a second message for the same field" },
          { field: "query.pageSize", message: "at most 100" },
        ],
      },
    });
    expect(p.code).toBe("VALIDATION_ERROR");
    expect(p.fields).toEqual({ email: "must be an email address", pageSize: "at most 100" });
  });

  it("reads a 429's wait from Retry-After", () => {
    const res = new Response(null, { status: 429, headers: { "Retry-After": "12" } });
    const p = problemOf({ error: { code: "RATE_LIMITED", message: "Too many requests." } }, res);
    expect(p.retryAfter).toBe(12);
  });

  it("calls anything that is not the contract's envelope a network failure", () => {
    expect(problemOf(undefined).code).toBe("NETWORK");
    expect(problemOf("<html>").code).toBe("NETWORK");
  });
});
