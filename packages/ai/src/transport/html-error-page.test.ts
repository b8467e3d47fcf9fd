import { describe, expect, it } from "vitest";
import { extractErrorMessage } from "./http.js";

describe("provider error bodies", () => {
  it("summarises a proxy's HTML error page by its title instead of dumping markup", () => {
    const page =
      "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n";
    const message = extractErrorMessage(page);
    expect(message).toBe(
      'an HTML page ("502 Bad Gateway") came back instead of an API answer; check the base URL or proxy',
    );
  });

  it("uses the page text when an HTML page has no title", () => {
    expect(extractErrorMessage("<!DOCTYPE html><body><p>Service   Unavailable</p></body>")).toContain(
      '("Service Unavailable")',
    );
  });

  it("keeps JSON and plain-text bodies as they were", () => {
    expect(extractErrorMessage('{"error":{"message":"Incorrect API key"}}')).toBe("Incorrect API key");
    expect(extractErrorMessage("upstream timed out <b>")).toBe("upstream timed out <b>");
  });
});
