/**
 * The route a request is counted under in the metrics: the declared path template
 * (`/v1/links/:id`), never the raw path, so that ids do not make a series each. Pure.
 */

export interface RouteTemplate {
  readonly method: string
  readonly path: string
}

interface Compiled {
  readonly method: string
  readonly path: string
  readonly segments: ReadonlyArray<string | null>
  /** Literal segments: `/v1/links/bulk` wins over `/v1/links/:id`. */
  readonly literals: number
}

/** Paths control serves outside the /v1 declaration, counted under their own name. */
const FIXED = new Set(["/healthz", "/readyz", "/metrics", "/v1/openapi.json", "/v1/docs", "/v1/events"])

export const makeRouteOf = (templates: ReadonlyArray<RouteTemplate>) => {
  const compiled: Array<Compiled> = templates.map(({ method, path }) => {
    const segments = path.split("/").slice(1).map((s) => (s.startsWith(":") ? null : s))
    return { method: method.toUpperCase(), path, segments, literals: segments.filter((s) => s !== null).length }
  })
  compiled.sort((a, b) => b.literals - a.literals)
  return (method: string, url: string): string => {
    const query = url.indexOf("?")
    const path = query === -1 ? url : url.slice(0, query)
    if (FIXED.has(path)) return path
    if (!path.startsWith("/v1/") && path !== "/v1") return "dashboard"
    const parts = path.split("/").slice(1)
    const upper = method.toUpperCase()
    // HEAD is answered by the GET route.
    const wanted = upper === "HEAD" ? "GET" : upper
    for (const route of compiled) {
      if (route.method !== wanted || route.segments.length !== parts.length) continue
      if (route.segments.every((s, i) => s === null ? parts[i] !== "" : s === parts[i])) return route.path
    }
    return "unmatched"
  }
}
