import { HttpApi, OpenApi } from "effect/http-api"
import { AnalyticsApi } from "../analytics/api.ts"
import { DomainsApi } from "../domains/api.ts"
import { FoldersApi } from "../folders/api.ts"
import { KeysApi } from "../keys/api.ts"
import { LinksApi } from "../links/api.ts"
import { InvitationsApi, MembersApi } from "../members/api.ts"
import { MeApi } from "../people/api.ts"
import { SessionsApi, SignInApi } from "../sessions/api.ts"
import { TagsApi } from "../tags/api.ts"
import { WebhooksApi } from "../webhooks/api.ts"
import { Admission } from "../kernel/Admission.ts"
import { refineDocument } from "./documentHeaders.ts"
import { PARAMS_OPTIONS, PAYLOAD_OPTIONS, QUERY_OPTIONS } from "../kernel/RequestChecks.ts"
import { Unexpected } from "../kernel/Unexpected.ts"

/**
 * The /v1 API, declared once: the server (control/http/server.ts), the typed client
 * (client.ts) and the OpenAPI document all come from this. Every endpoint is admitted first
 * (API key, rate limits, plan) and anything unexpected is a logged 500.
 */
export const Api = HttpApi.make("ricochet")
  .add(LinksApi, TagsApi, FoldersApi, DomainsApi, AnalyticsApi, WebhooksApi)
  .add(SessionsApi, MeApi, KeysApi, MembersApi)
  .middleware(Admission)
  // Added after Admission, which they are not behind: signing in (or accepting an invitation) is how a session begins.
  .add(SignInApi, InvitationsApi)
  .middleware(Unexpected)
  .prefix("/v1")
  .annotate(HttpApi.ParamsParseOptions, PARAMS_OPTIONS)
  .annotate(HttpApi.QueryParseOptions, QUERY_OPTIONS)
  .annotate(HttpApi.PayloadParseOptions, PAYLOAD_OPTIONS)
  // A response is exactly its schema: a union member is chosen only when every field is its own.
  .annotate(HttpApi.SuccessParseOptions, { onExcessProperty: "error" })
  .annotateMerge(OpenApi.annotations({
    title: "Ricochet API",
    version: "1.0.0",
    description: "Short links, tags, folders, domains, click analytics and webhooks of a workspace. Authenticate with an API key " +
      "(Authorization: Bearer rico_…) or, in a browser, the session cookie that POST /v1/sessions sets (unsafe methods then " +
      "need an Origin header of this site). Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset " +
      "(seconds) for the allowance the request was counted in: 300 requests a minute per workspace, analytics also 20, " +
      "30 a minute per address without a valid key. A 429 also carries Retry-After, and so does a 503 (the database " +
      "is unavailable; it carries no RateLimit headers when the request could not be counted).",
    license: { name: "MIT", identifier: "MIT" },
    servers: [{ url: "/", description: "This server" }],
    transform: refineDocument
  }))
