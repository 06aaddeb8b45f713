import type { LinkCache } from "../../engine/cache/linkCache.ts"
import { makeGeoLookup } from "../../engine/geo/geo.ts"
import { startEngineServer } from "../../engine/http/server.ts"

type ServerOptions = Parameters<typeof startEngineServer>[0]

/**
 * An engine's HTTP server alone on a loopback port, over the cache a test gives it: no geo
 * database, no click writer (clicks are dropped), no proxy trusted. Options override the rest.
 */
export const startTestEngineServer = (cache: LinkCache, options: Partial<ServerOptions> = {}) =>
  startEngineServer({
    host: "127.0.0.1",
    port: 0,
    cache,
    clicks: { add: () => {} },
    geo: makeGeoLookup({ header: undefined, countryDatabase: undefined, cityDatabase: undefined }),
    secret: "s",
    trustProxy: false,
    linkScheme: "http",
    status: () => "{}",
    ...options
  })
