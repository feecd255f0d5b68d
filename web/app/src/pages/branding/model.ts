// The branding form's values, read from the API's Branding and written back as the
// BrandingUpdate that replaces it as a whole (a field left out or null is cleared), and the
// checks the browser makes before sending: the colour's pattern, an image's type and size.
import type { Schemas } from "../../api/client";

type Branding = Schemas["Branding"];
type Update = Schemas["BrandingUpdate"];
export type Locale = NonNullable<Branding["defaultLocale"]>;

export const locales: readonly Locale[] = ["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "zh-Hans"];

/** The largest images the API accepts, decoded (openapi/v1.json, updateBranding). */
export const maxLogoBytes = 256 * 1024;
export const maxSignatureBytes = 128 * 1024;
/** At most two signatories: a layout holds at most two signatures. */
export const maxSignatories = 2;

/** The image types the API takes, as data URIs. */
export const imageTypes = ["image/png", "image/svg+xml"] as const;

export interface SignatoryValues {
  /** A key of the row's own, for the list (rows are added and removed). */
  key: number;
  name: string;
  title: string;
  signatureImage: string | null;
}

export interface BrandingValues {
  issuerName: string;
  website: string;
  publicEmail: string;
  logo: string | null;
  primaryColor: string;
  emailFromName: string;
  emailReplyTo: string;
  defaultLocale: Locale | "";
  signatories: SignatoryValues[];
}

let rows = 0;
/** nextKey is a new row's key. */
export function nextKey(): number {
  rows += 1;
  return rows;
}

export const emptyValues: BrandingValues = {
  issuerName: "",
  website: "",
  publicEmail: "",
  logo: null,
  primaryColor: "",
  emailFromName: "",
  emailReplyTo: "",
  defaultLocale: "",
  signatories: [],
};

/** valuesOf reads the API's branding into the form. */
export function valuesOf(b: Branding): BrandingValues {
  return {
    issuerName: b.issuerName ?? "",
    website: b.website ?? "",
    publicEmail: b.publicEmail ?? "",
    logo: b.logo,
    primaryColor: b.primaryColor ?? "",
    emailFromName: b.emailFromName ?? "",
    emailReplyTo: b.emailReplyTo ?? "",
    defaultLocale: b.defaultLocale ?? "",
    signatories: b.signatories.map((s) => ({ key: nextKey(), name: s.name, title: s.title ?? "", signatureImage: s.signatureImage ?? null })),
  };
}

const orNull = (s: string) => (s.trim() === "" ? null : s.trim());

/** bodyOf writes the form as the update, every field named: an empty one is cleared. */
export function bodyOf(v: BrandingValues): Update {
  return {
    issuerName: orNull(v.issuerName),
    website: orNull(v.website),
    publicEmail: orNull(v.publicEmail),
    logo: v.logo,
    primaryColor: orNull(v.primaryColor)?.toUpperCase() ?? null,
    emailFromName: orNull(v.emailFromName),
    emailReplyTo: orNull(v.emailReplyTo),
    defaultLocale: v.defaultLocale === "" ? null : v.defaultLocale,
    signatories: v.signatories.map((s) => {
      const out: Schemas["Signatory"] = { name: s.name.trim(), title: s.title.trim(), signatureImage: s.signatureImage };
      return out;
    }),
  };
}

/** colourOk says whether a colour is empty (none) or written as the API's pattern wants. */
export function colourOk(c: string): boolean {
  return c.trim() === "" || /^#[0-9A-Fa-f]{6}$/.test(c.trim());
}

/** pickerColour is what the colour picker shows: the colour written, else a neutral one. */
export function pickerColour(c: string, fallback = "#3538cd"): string {
  return /^#[0-9A-Fa-f]{6}$/.test(c.trim()) ? c.trim().toLowerCase() : fallback;
}

/** The form's own refusals before anything is sent, by the API's field names. */
export function localProblems(v: BrandingValues, texts: { colourInvalid: string; signatoryNameRequired: string }): Record<string, string> {
  const out: Record<string, string> = {};
  if (!colourOk(v.primaryColor)) out["primaryColor"] = texts.colourInvalid;
  v.signatories.forEach((s, i) => {
    if (s.name.trim() === "") out[`signatories[${i}].name`] = texts.signatoryNameRequired;
  });
  return out;
}

export type FileRefusal = { kind: "type" } | { kind: "empty" } | { kind: "size"; sizeKiB: number; maxKiB: number };

/** typeOf is the image type of a file: the browser's, or read from its name when it has none. */
export function typeOf(file: { name: string; type: string }): string {
  if (file.type) return file.type;
  const n = file.name.toLowerCase();
  if (n.endsWith(".png")) return "image/png";
  if (n.endsWith(".svg")) return "image/svg+xml";
  return "";
}

/** checkFile refuses a file the API would: not PNG or SVG, empty, or over maxBytes. */
export function checkFile(file: { name: string; type: string; size: number }, maxBytes: number): FileRefusal | null {
  if (!(imageTypes as readonly string[]).includes(typeOf(file))) return { kind: "type" };
  if (file.size === 0) return { kind: "empty" };
  if (file.size > maxBytes) return { kind: "size", sizeKiB: Math.ceil(file.size / 1024), maxKiB: maxBytes / 1024 };
  return null;
}

/** dataURIOf writes a file's bytes as the data URI the API takes (its type, base64). */
export function dataURIOf(type: string, bytes: Uint8Array): string {
  let bin = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) bin += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return `data:${type};base64,${btoa(bin)}`;
}

/** withoutField drops one field's message (once that field changed). */
export function withoutField(fields: Record<string, string>, name: string): Record<string, string> {
  if (!(name in fields)) return fields;
  const { [name]: _gone, ...rest } = fields;
  return rest;
}

/**
 * withoutSignatory drops the messages of signatory i and moves those of the rows after it up
 * one, as the rows themselves move.
 */
export function withoutSignatory(fields: Record<string, string>, i: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    const m = /^signatories\[(\d+)\](.*)$/.exec(k);
    if (!m) {
      out[k] = v;
      continue;
    }
    const n = Number(m[1]);
    if (n === i) continue;
    out[n > i ? `signatories[${n - 1}]${m[2] ?? ""}` : k] = v;
  }
  return out;
}
