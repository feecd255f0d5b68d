// The application's texts: one catalogue per part of the application (src/i18n/*.ts), English
// and German, each German table typed to hold every English key. Other languages fall back to
// English (decision "The application").
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export type Lang = "en" | "de";

export const languages: readonly Lang[] = ["en", "de"];

type Table = Record<string, string>;

export interface Catalog<T extends Table> {
  en: T;
  de: { [K in keyof T]: string };
}

/** catalog declares a part's texts; German must translate every English key. */
export function catalog<T extends Table>(en: T, de: { [K in keyof T]: string }): Catalog<T> {
  return { en, de };
}

const stored = "credentiald.lang";

/** preferredLang is the language chosen before in this browser, or the browser's, or English. */
export function preferredLang(): Lang {
  try {
    const s = localStorage.getItem(stored);
    if (s === "en" || s === "de") return s;
  } catch {
    // storage refused (private mode): the browser's language decides
  }
  const nav = typeof navigator !== "undefined" ? navigator.languages ?? [navigator.language] : [];
  for (const l of nav) {
    const p = l.toLowerCase().split("-")[0];
    if (p === "de") return "de";
    if (p === "en") return "en";
  }
  return "en";
}

export function rememberLang(l: Lang) {
  try {
    localStorage.setItem(stored, l);
  } catch {
    // not kept: chosen again next time
  }
}

export const LangContext = createContext<Lang>("en");

/** useText answers the part's texts in the page's language. */
export function useText<T extends Table>(c: Catalog<T>): { [K in keyof T]: string } {
  return c[useContext(LangContext)];
}

/** fill puts values into a text's {placeholders}. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}

/** useFormat formats numbers and dates in the page's language. */
export function useFormat() {
  const lang = useContext(LangContext);
  const locale = lang === "de" ? "de-DE" : "en-GB";
  return {
    number: (n: number) => new Intl.NumberFormat(locale).format(n),
    date: (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(iso)),
    dateTime: (iso: string) =>
      new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)),
  };
}
