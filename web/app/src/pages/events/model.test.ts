import { describe, expect, it } from "vitest";
import { bodyOf, dateInput, direction, emptyValues, listAddress, nextSort, pageOf, sortOf, validityOk, valuesOf } from "./model";

describe("the list's order", () => {
  it("reads only the API's EventSort values", () => {
    expect(sortOf("name")).toBe("name");
    expect(sortOf("-eventDate")).toBe("-eventDate");
    expect(sortOf("location")).toBe("-createdAt");
    expect(sortOf(undefined)).toBe("-createdAt");
  });
  it("sorts ascending first, then turns round", () => {
    expect(nextSort("-createdAt", "name")).toBe("name");
    expect(nextSort("name", "name")).toBe("-name");
    expect(nextSort("-name", "name")).toBe("name");
    expect(nextSort("-name", "eventDate")).toBe("eventDate");
    expect(direction("-eventDate", "eventDate")).toBe("descending");
    expect(direction("eventDate", "name")).toBeUndefined();
  });
  it("keeps search, order and page in the address, defaults left out", () => {
    expect(listAddress("", "-createdAt", 1)).toBe("/app/events");
    expect(listAddress("go & rust", "name", 2)).toBe("/app/events?q=go+%26+rust&sort=name&page=2");
    expect(pageOf("3")).toBe(3);
    expect(pageOf("0")).toBe(1);
    expect(pageOf("x")).toBe(1);
  });
});

describe("the form's body", () => {
  const event = {
    id: "e1",
    name: "Go Conference",
    description: null,
    eventDate: "2026-11-12T14:30:00Z",
    location: "Berlin",
    templateId: "t1",
    certificateValidityDays: 730,
    locale: "de" as const,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
  };
  it("sends the day at 09:00 UTC and empty optional fields as null", () => {
    expect(bodyOf({ ...emptyValues, name: " Go ", date: "2026-11-12", templateId: "t1" })).toEqual({
      name: "Go",
      description: null,
      eventDate: "2026-11-12T09:00:00Z",
      location: null,
      templateId: "t1",
      certificateValidityDays: null,
    });
  });
  it("keeps an edited event's time while its day stays", () => {
    const v = valuesOf(event);
    expect(v.date).toBe("2026-11-12");
    expect(v.validity).toBe("730");
    expect(bodyOf(v, event.eventDate)).toMatchObject({ eventDate: "2026-11-12T14:30:00Z", locale: "de", certificateValidityDays: 730 });
    expect(bodyOf({ ...v, date: "2026-11-13" }, event.eventDate).eventDate).toBe("2026-11-13T09:00:00Z");
  });
  it("takes whole days or nothing for the validity", () => {
    expect(validityOk("")).toBe(true);
    expect(validityOk(" 365 ")).toBe(true);
    expect(validityOk("1.5")).toBe(false);
    expect(validityOk("1e3")).toBe(false);
    expect(dateInput("not a date")).toBe("");
  });
});
