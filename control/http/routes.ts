import { analyticsRoutes } from "../analytics/routes.ts"
import { domainRoutes } from "../domains/routes.ts"
import { folderRoutes } from "../folders/routes.ts"
import { linkRoutes } from "../links/routes.ts"
import { tagRoutes } from "../tags/routes.ts"
import type { Route } from "./route.ts"

/** Every /v1 endpoint. The router serves this table and the OpenAPI document describes it. */
export const apiRoutes: ReadonlyArray<Route> = [...linkRoutes, ...tagRoutes, ...folderRoutes, ...domainRoutes, ...analyticsRoutes]
