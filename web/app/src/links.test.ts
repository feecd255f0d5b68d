import { beforeEach, describe, expect, it } from "vitest";
import { forgetLinkToken, linkToken, takeLinkFromHash } from "./links";

describe("takeLinkFromHash", () => {
  beforeEach(() => history.replaceState(null, "", "/app/"));

  it("takes an email's token out of the address, into the page's own", () => {
    history.replaceState(null, "", "/app/#reset=abc%2Fdef");
    expect(takeLinkFromHash()).toBe("/app/reset");
    expect(window.location.pathname).toBe("/app/reset");
    expect(window.location.hash).toBe("");
    expect(linkToken("reset")).toBe("abc/def");
    forgetLinkToken("reset");
    expect(linkToken("reset")).toBe("");
  });

  it("opens the forgotten-password page for #forgot", () => {
    history.replaceState(null, "", "/app/#forgot");
    expect(takeLinkFromHash()).toBe("/app/forgot");
  });

  it("leaves any other hash alone", () => {
    history.replaceState(null, "", "/app/#main");
    expect(takeLinkFromHash()).toBeNull();
    expect(window.location.hash).toBe("#main");
  });
});
