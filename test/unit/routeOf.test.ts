import { describe, expect, it } from "vitest"
import { makeRouteOf } from "../../control/ops/routeOf.ts"

const routeOf = makeRouteOf([
  { method: "GET", path: "/v1/links" },
  { method: "POST", path: "/v1/links/bulk" },
  { method: "GET", path: "/v1/links/:id" },
  { method: "PATCH", path: "/v1/links/:id" },
  { method: "GET", path: "/v1/links/:id/qr" },
  { method: "GET", path: "/v1/links/info" }
])

describe("routeOf: the metrics' route label is the declared template", () => {
  it.each([
    ["GET", "/v1/links", "/v1/links"],
    ["GET", "/v1/links?limit=5&search=x", "/v1/links"],
    ["GET", "/v1/links/lnk_123", "/v1/links/:id"],
    ["HEAD", "/v1/links/lnk_123", "/v1/links/:id"],
    ["PATCH", "/v1/links/lnk_123", "/v1/links/:id"],
    ["GET", "/v1/links/info?slug=a", "/v1/links/info"],
    ["POST", "/v1/links/bulk", "/v1/links/bulk"],
    ["GET", "/v1/links/lnk_1/qr", "/v1/links/:id/qr"],
    ["DELETE", "/v1/links/lnk_1", "unmatched"],
    ["GET", "/v1/links/", "unmatched"],
    ["GET", "/v1/nothing/here", "unmatched"],
    ["GET", "/healthz", "/healthz"],
    ["GET", "/metrics", "/metrics"],
    ["GET", "/v1/openapi.json", "/v1/openapi.json"],
    ["GET", "/links/lnk_1", "dashboard"],
    ["GET", "/", "dashboard"]
  ])("%s %s → %s", (method, url, route) => {
    expect(routeOf(method, url)).toBe(route)
  })
})
