import { describe, expect, it } from "vitest";
import { bodyOf, checkFile, colourOk, dataURIOf, emptyValues, localProblems, pickerColour, typeOf, valuesOf, withoutSignatory } from "./model";

const texts = { colourInvalid: "colour!", signatoryNameRequired: "name!" };

describe("the branding form's body", () => {
  it("reads the API's branding and writes it back whole, empty fields cleared", () => {
    const v = valuesOf({
      issuerName: "Gophers e.V.",
      website: null,
      logo: "data:image/png;base64,AAAA",
      primaryColor: "#1f4e79",
      emailFromName: null,
      emailReplyTo: "replies@example.org",
      defaultLocale: "de",
      signatories: [{ name: "Grace Hopper", signatureImage: "data:image/svg+xml;base64,PHN2Zy8+" }],
      publicEmail: null,
    });
    expect(v.website).toBe("");
    expect(v.signatories[0]?.title).toBe("");
    v.issuerName = "  Gophers  ";
    expect(bodyOf(v)).toEqual({
      issuerName: "Gophers",
      website: null,
      publicEmail: null,
      logo: "data:image/png;base64,AAAA",
      primaryColor: "#1F4E79",
      emailFromName: null,
      emailReplyTo: "replies@example.org",
      defaultLocale: "de",
      signatories: [{ name: "Grace Hopper", title: "", signatureImage: "data:image/svg+xml;base64,PHN2Zy8+" }],
    });
    expect(bodyOf(emptyValues)).toMatchObject({ issuerName: null, logo: null, defaultLocale: null, signatories: [] });
  });
});

describe("the browser's checks", () => {
  it("takes a colour as the API's pattern does, or none", () => {
    expect(colourOk("")).toBe(true);
    expect(colourOk("#1F4e79")).toBe(true);
    expect(colourOk("#12345")).toBe(false);
    expect(colourOk("blue")).toBe(false);
    expect(colourOk("#12345G")).toBe(false);
    expect(pickerColour("#ABCDEF")).toBe("#abcdef");
    expect(pickerColour("nope", "#000000")).toBe("#000000");
    expect(localProblems({ ...emptyValues, primaryColor: "#12" }, texts)).toEqual({ primaryColor: "colour!" });
    expect(
      localProblems({ ...emptyValues, signatories: [{ key: 1, name: " ", title: "", signatureImage: null }] }, texts),
    ).toEqual({ "signatories[0].name": "name!" });
  });
  it("refuses an image the API would refuse", () => {
    expect(checkFile({ name: "a.png", type: "image/png", size: 10 }, 100)).toBeNull();
    expect(checkFile({ name: "a.svg", type: "", size: 10 }, 100)).toBeNull();
    expect(checkFile({ name: "a.jpg", type: "image/jpeg", size: 10 }, 100)).toEqual({ kind: "type" });
    expect(checkFile({ name: "a.png", type: "image/png", size: 0 }, 100)).toEqual({ kind: "empty" });
    expect(checkFile({ name: "a.png", type: "image/png", size: 300 * 1024 }, 256 * 1024)).toEqual({ kind: "size", sizeKiB: 300, maxKiB: 256 });
    expect(typeOf({ name: "LOGO.PNG", type: "" })).toBe("image/png");
  });
  it("writes a file as a data URI", () => {
    expect(dataURIOf("image/png", new Uint8Array([1, 2, 3]))).toBe("data:image/png;base64,AQID");
  });
  it("moves a removed row's messages with the rows", () => {
    expect(
      withoutSignatory({ "signatories[0].name": "a", "signatories[1].title": "b", logo: "c" }, 0),
    ).toEqual({ "signatories[0].title": "b", logo: "c" });
  });
});
