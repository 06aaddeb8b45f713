import { HttpApi } from "effect/http-api"
import { Api } from "../api/Api.ts"
import type { RouteTemplate } from "../ops/routeOf.ts"

/** Every endpoint the HttpApi declares, as method and path template: what requests are counted and logged under. */
export const API_ROUTES: ReadonlyArray<RouteTemplate> = (() => {
  const templates: Array<RouteTemplate> = []
  HttpApi.reflect(Api, { onGroup: () => {}, onEndpoint: ({ endpoint }) => templates.push({ method: endpoint.method, path: endpoint.path }) })
  return templates
})()
