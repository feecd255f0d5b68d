import { describe, expect, it } from "vitest";
import { event } from "../../i18n/event";
import { ariaSort, jobIdOf, nextSort, pages, pdfName, revocable, searchText, statusByAttendee } from "./logic";

describe("the event page's rules", () => {
  it("orders by a new column ascending (dates newest first) and turns the same column around", () => {
    expect(nextSort("-createdAt", "lastName")).toBe("lastName");
    expect(nextSort("lastName", "lastName")).toBe("-lastName");
    expect(nextSort("-lastName", "lastName")).toBe("lastName");
    expect(nextSort("lastName", "createdAt", true)).toBe("-createdAt");
    expect(ariaSort("-createdAt", "createdAt")).toBe("descending");
    expect(ariaSort("email", "email")).toBe("ascending");
    expect(ariaSort("email", "lastName")).toBeUndefined();
  });

  it("searches only from 3 characters", () => {
    expect(searchText(" ad ")).toBeUndefined();
    expect(searchText(" ada ")).toBe("ada");
    expect(searchText("x".repeat(150))).toHaveLength(100);
  });

  it("counts pages, at least one", () => {
    expect(pages({ page: 1, pageSize: 20, total: 0 })).toBe(1);
    expect(pages({ page: 1, pageSize: 20, total: 41 })).toBe(3);
  });

  it("lets a valid certificate speak for its attendee before a revoked or a newer draft", () => {
    const s = statusByAttendee([
      { attendeeId: "a", status: "revoked" },
      { attendeeId: "a", status: "valid" },
      { attendeeId: "b", status: "draft" },
      { attendeeId: "b", status: "expired" },
      { attendeeId: "c", status: "revoked" },
    ]);
    expect(s.get("a")).toBe("valid");
    expect(s.get("b")).toBe("draft");
    expect(s.get("c")).toBe("revoked");
    expect(s.get("d")).toBeUndefined();
  });

  it("revokes only what was issued and stands", () => {
    expect(revocable({ status: "valid", issuedAt: "2026-01-01T00:00:00Z" })).toBe(true);
    expect(revocable({ status: "expired", issuedAt: "2026-01-01T00:00:00Z" })).toBe(true);
    expect(revocable({ status: "revoked", issuedAt: "2026-01-01T00:00:00Z" })).toBe(false);
    expect(revocable({ status: "draft", issuedAt: null })).toBe(false);
  });

  it("reads a job's id from its Location and names a PDF after its number", () => {
    const id = "0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91";
    expect(jobIdOf(`/api/v1/events/x/certificates/generate/jobs/${id}`)).toBe(id);
    expect(jobIdOf(null)).toBeNull();
    expect(pdfName("CERT-2026-000042")).toBe("CERT-2026-000042.pdf");
    expect(pdfName("a/b c")).toBe("a-b-c.pdf");
  });

  it("has every text in German, none empty", () => {
    for (const k of Object.keys(event.en)) {
      expect(event.de[k as keyof typeof event.de], k).toBeTruthy();
    }
  });
});
