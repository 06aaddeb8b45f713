import { Data, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { assetFor, cacheControl, CONTENT_SECURITY_POLICY, DASHBOARD_DIST, loadAssets, representationOf } from "./assets.ts"

export class DashboardAssetsUnreadable extends Data.TaggedError("DashboardAssetsUnreadable")<{ readonly cause: unknown }> {}

const notFound = (message: string) => HttpServerResponse.jsonUnsafe({ error: { code: "not_found", message } }, { status: 404 })

/**
 * The route for every path that is not the API: the dashboard's files and, for its client-side
 * routes, index.html. Other methods, and files that do not exist, are JSON 404s.
 */
export const dashboardRoute = Effect.gen(function*() {
  const assets = yield* Effect.tryPromise({ try: () => loadAssets(), catch: (cause) => new DashboardAssetsUnreadable({ cause }) })
  if (assets.size === 0) {
    yield* Effect.logWarning(`The dashboard is not built (no ${DASHBOARD_DIST}); run npm ci or npm run build:dashboard`)
  }
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "GET" && request.method !== "HEAD") return notFound("Not found; the API lives under /v1")
    const urlPath = new URL(request.url, "http://localhost").pathname
    const asset = assetFor(assets, urlPath)
    if (asset === undefined) {
      return notFound(assets.size === 0 ? "The dashboard is not built: run npm run build:dashboard; the API lives under /v1" : "Not found; the API lives under /v1")
    }
    const chosen = representationOf(asset, request.headers["accept-encoding"])
    const headers: Record<string, string> = {
      "cache-control": cacheControl(asset),
      etag: chosen.etag,
      vary: "Accept-Encoding",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin"
    }
    if (chosen.encoding !== undefined) headers["content-encoding"] = chosen.encoding
    if (asset.contentType.startsWith("text/html")) {
      headers["content-security-policy"] = CONTENT_SECURITY_POLICY
      headers["x-frame-options"] = "DENY"
    }
    if (request.headers["if-none-match"] === chosen.etag) return HttpServerResponse.empty({ status: 304, headers })
    return HttpServerResponse.uint8Array(chosen.body, { contentType: asset.contentType, headers })
  })
})
