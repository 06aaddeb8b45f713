import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "./Api.ts"

/**
 * A typed client of the API, derived from its declaration: `client.links.create({ payload })`
 * succeeds with the decoded Link, or fails with the declared error (SlugTaken, ValidationFailed,
 * …) decoded from the response. `key` is sent as the bearer token. Needs an HttpClient
 * (FetchHttpClient.layer, say).
 */
export const makeApiClient = (baseUrl: string, key?: string) =>
  HttpApiClient.make(Api, {
    baseUrl,
    transformClient: key === undefined ? undefined : HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  })

export type ApiClient = Effect.Success<ReturnType<typeof makeApiClient>>
