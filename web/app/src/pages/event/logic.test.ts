import { describe, expect, it } from "vitest";
import { event } from "../../i18n/event";
import {
  ariaSort,
  csvCell,
  csvRecords,
  detectDelimiter,
  fileName,
  jobIdOf,
  nextSort,
  pages,
  pdfName,
  previewCsv,
  rejectedCsv,
  revocable,
  searchText,
  sendable,
  statusByAttendee,
  type CsvRecord,
} from "./logic";

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
    expect(sendable({ status: "expired", issuedAt: "2026-01-01T00:00:00Z" })).toBe(true);
    expect(sendable({ status: "revoked", issuedAt: "2026-01-01T00:00:00Z" })).toBe(false);
    expect(sendable({ status: "draft", issuedAt: null })).toBe(false);
  });

  it("reads a job's id from its Location and names a PDF after its number", () => {
    const id = "0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91";
    expect(jobIdOf(`/api/v1/events/x/certificates/generate/jobs/${id}`)).toBe(id);
    expect(jobIdOf(null)).toBeNull();
    expect(pdfName("CERT-2026-000042")).toBe("CERT-2026-000042.pdf");
    expect(pdfName("a/b c")).toBe("a-b-c.pdf");
  });

  it("names a saved file after the event, without a path's characters", () => {
    expect(fileName("GopherCon EU", "-attendees.csv")).toBe("GopherCon EU-attendees.csv");
    expect(fileName("a/b: c?", ".csv")).toBe("a-b- c.csv");
    expect(fileName(" ../.. ", ".csv")).toBe("export.csv");
  });

  it("finds the delimiter in the header line, as the service does", () => {
    expect(detectDelimiter("firstName,lastName,email\n")).toBe(",");
    expect(detectDelimiter("firstName;lastName;email\r\na,b,c,d,e\n")).toBe(";");
    expect(detectDelimiter("firstName\tlastName\temail")).toBe("\t");
    expect(detectDelimiter('"a;b;c",x,y\n')).toBe(","); // inside quotes, not counted
    expect(detectDelimiter("\ufeffemail")).toBe(",");
    expect(detectDelimiter("a;b,c\n")).toBe(","); // a tie is a comma
  });

  it("reads quoted cells, doubled quotes, line breaks in a cell and CRLF", () => {
    const got: CsvRecord[] = [];
    csvRecords('a,"b, c","say ""hi"""\r\n"two\r\nlines",,x\n\nlast', ",", (r) => got.push(r));
    expect(got).toEqual([
      { line: 1, cells: ["a", "b, c", 'say "hi"'] },
      { line: 2, cells: ["two\nlines", "", "x"] },
      { line: 4, cells: [""] },
      { line: 5, cells: ["last"] },
    ]);
    const end: CsvRecord[] = [];
    csvRecords("a;b;", ";", (r) => end.push(r));
    expect(end).toEqual([{ line: 1, cells: ["a", "b", ""] }]);
  });

  it("forgives a stray or unclosed quote (the service judges the file)", () => {
    const got: string[][] = [];
    csvRecords('a"b,"c\nd', ",", (r) => got.push(r.cells));
    expect(got).toEqual([["a\"b", "c\nd"]]);
  });

  it("previews a file's header, first rows and count, past a BOM and blank lines", () => {
    const rows = Array.from({ length: 7 }, (_, i) => `P${i};Q${i};p${i}@example.org`).join("\n");
    const p = previewCsv(`\ufefffirstName;lastName;email\n;;\n${rows}\n\n`);
    expect(p.delimiter).toBe(";");
    expect(p.header).toEqual(["firstName", "lastName", "email"]);
    expect(p.count).toBe(7);
    expect(p.rows).toHaveLength(5);
    expect(p.rows[0]).toEqual({ line: 3, cells: ["P0", "Q0", "p0@example.org"] });
    // A blank first line is the header line the service reads the delimiter from: a comma.
    const late = previewCsv("\nfirstName;lastName;email\na;b;c\n");
    expect(late.delimiter).toBe(",");
    expect(late.header).toEqual(["firstName;lastName;email"]);
    expect(previewCsv("")).toEqual({ delimiter: ",", header: [], rows: [], count: 0 });
    expect(previewCsv("email\n").count).toBe(0);
  });

  it("writes the rejected rows as CSV a spreadsheet reads safely", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a "b", c')).toBe('"a ""b"", c"');
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell("-1;x")).toBe("\"'-1;x\"");
    const text = rejectedCsv([{ row: 3, email: "not-an-email", reason: "INVALID_EMAIL", message: "The email address is not valid." }, { row: 9, email: null, reason: "MISSING_FIELD", message: "x" }]);
    expect(text).toBe("\ufeffline,email,reason,message\r\n3,not-an-email,INVALID_EMAIL,The email address is not valid.\r\n9,,MISSING_FIELD,x\r\n");
    // What the page writes reads back the same.
    const back: string[][] = [];
    csvRecords(text, detectDelimiter(text), (r) => back.push(r.cells));
    expect(back[1]).toEqual(["3", "not-an-email", "INVALID_EMAIL", "The email address is not valid."]);
  });

  it("has every text in German, none empty", () => {
    for (const k of Object.keys(event.en)) {
      expect(event.de[k as keyof typeof event.de], k).toBeTruthy();
    }
  });
});
