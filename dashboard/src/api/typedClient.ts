import { Cause, Effect, Exit, Layer, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "../../../control/api/Api.ts"
import { type ApiFailure, failed, type Outcome, reportFailure } from "./failure.ts"
import { currentApiKey } from "./credentials.ts"
import { fieldIssuesOf } from "./schemaIssues.ts"

/**
 * The typed client of our own declaration: every /v1 call of the dashboard past the sign-in page
 * goes through it, over the browser's fetch with the session cookie (same origin), or with the
 * API key the person signed in with (kept in memory only).
 */
const makeClient = HttpApiClient.make(Api, {
  baseUrl: window.location.origin,
  transformClient: HttpClient.mapRequest((request) => {
    const key = currentApiKey()
    return key === undefined ? request : HttpClientRequest.bearerToken(request, key)
  })
})

export type Client = Effect.Success<typeof makeClient>

const clientLayer = Layer.succeed(FetchHttpClient.RequestInit)({ credentials: "same-origin" }).pipe(
  Layer.merge(FetchHttpClient.layer)
)

let client: Promise<Client> | undefined
const getClient = () => (client ??= Effect.runPromise(makeClient.pipe(Effect.provide(FetchHttpClient.layer))))

/** A declared error (ApiError classes carry code, status, message, issues) or another failure, in words. */
const toFailure = (error: unknown): ApiFailure => {
  if (typeof error === "object" && error !== null) {
    const e = error as { code?: unknown; status?: unknown; message?: unknown; issues?: unknown; _tag?: unknown }
    if (typeof e.code === "string" && typeof e.status === "number" && typeof e.message === "string") {
      return failed(e.status, e.code, e.message, Array.isArray(e.issues) ? e.issues : [])
    }
    // The payload did not pass the declaration's schema: named by field, as the server would.
    if (Schema.isSchemaError(error)) {
      const issues = fieldIssuesOf(error.issue)
      return failed(422, "unprocessable_entity", `Invalid request: ${issues[0]?.message ?? "invalid value"}`, issues)
    }
    if (e._tag === "HttpClientError" || e._tag === "TransportError" || e._tag === "RequestError") {
      return failed(0, "network", "The server could not be reached")
    }
    if (typeof e.message === "string" && e.message !== "") return failed(0, "unexpected", e.message)
  }
  return failed(0, "unexpected", String(error))
}

export interface CallOptions {
  /** A 401 is an answer (is anyone signed in?), not the end of a session to report. */
  readonly quiet?: boolean
  /** Aborting interrupts the call (its fetch too): a page that went away. */
  readonly signal?: AbortSignal
}

/** Runs one call of the typed client; the failure, declared or not, comes back as an ApiFailure. */
export const call = async <A, E>(f: (client: Client) => Effect.Effect<A, E>, options: CallOptions = {}): Promise<Outcome<A>> => {
  const exit = await Effect.runPromiseExit(
    Effect.flatMap(Effect.promise(getClient), f).pipe(Effect.provide(clientLayer)),
    options.signal === undefined ? undefined : { signal: options.signal }
  )
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  if (Cause.hasInterruptsOnly(exit.cause)) return { ok: false, failure: failed(0, "aborted", "Cancelled") }
  const failure = toFailure(Cause.squash(exit.cause))
  return { ok: false, failure: options.quiet ? failure : reportFailure(failure) }
}
