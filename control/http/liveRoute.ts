import { Effect, Queue, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { ProxySettings } from "../../shared/settings/ProxySettings.ts"
import { SessionSettings } from "../sessions/SessionSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { admit } from "./AdmissionLayer.ts"
import type { Principal } from "../kernel/Principal.ts"
import { query } from "../db/sql.ts"
import { LiveHub, STREAMS_PER_PROCESS, STREAMS_PER_WORKSPACE } from "../live/LiveHub.ts"

/** A comment line every so often keeps proxies from closing a quiet stream, and checks the caller is still signed in. */
export const HEARTBEAT_SECONDS = 15
/** How long a refused stream is asked to wait before trying again. */
const RETRY_AFTER_SECONDS = 30

/** The session or key is still good: not signed out, not revoked, not idle past its limit, still a member. */
const stillValid = (principal: Principal, idleHours: number) =>
  query((sql) =>
    principal.via === "session"
      ? sql`SELECT 1 FROM sessions s JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = s.user_id
            WHERE s.id = ${principal.credentialId} AND s.workspace_id = ${principal.workspaceId} AND s.revoked_at IS NULL
              AND s.last_seen_at > now() - make_interval(secs => ${idleHours * 3600})`
      : sql`SELECT 1 FROM api_keys k JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
            WHERE k.id = ${principal.credentialId} AND k.revoked_at IS NULL`
  ).pipe(Effect.map((rows) => rows.length > 0), Effect.orElseSucceed(() => true))

const refused = (message: string) =>
  HttpServerResponse.jsonUnsafe(
    { error: { code: "rate_limit_exceeded", message } },
    { status: 429, headers: { "retry-after": String(RETRY_AFTER_SECONDS), "cache-control": "no-store" } }
  )

/**
 * GET /v1/events: the signed-in workspace's live events as server-sent events (`event: click`,
 * `event: link`), admitted and counted like any request. Bounded per workspace and per process;
 * a heartbeat every HEARTBEAT_SECONDS, which also ends the stream once its session or key is no
 * longer good (signing out in this process ends it at once).
 */
export const liveEventsRoute = Effect.gen(function*() {
  const sessionSettings = yield* SessionSettings
  const proxySettings = yield* ProxySettings
  const database = yield* Database
  const hub = yield* LiveHub
  return Effect.gen(function*() {
    const principal = (yield* admit("general"))!
    const stream = yield* hub.open(principal.workspaceId, principal.credentialId)
    if (stream === "workspace") return refused(`At most ${STREAMS_PER_WORKSPACE} live streams per workspace are open at once; close a tab and retry`)
    if (stream === "process") return refused(`This server holds ${STREAMS_PER_PROCESS} live streams already; retry later`)
    const heartbeat = Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(`${HEARTBEAT_SECONDS} seconds`)
        const valid = yield* stillValid(principal, sessionSettings.sessionIdleHours).pipe(Effect.provideService(Database, database))
        if (!valid) return yield* hub.close(stream)
        Queue.offerUnsafe(stream.queue, ": heartbeat\n\n")
      }
    })
    const body = Stream.unwrap(Effect.gen(function*() {
      yield* Effect.forkScoped(heartbeat)
      return Stream.concat(Stream.succeed(`retry: 5000\n: connected\n\n`), Stream.fromQueue(stream.queue))
    })).pipe(Stream.encodeText, Stream.ensuring(hub.close(stream)))
    return HttpServerResponse.stream(body, {
      contentType: "text/event-stream; charset=utf-8",
      headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
    })
  }).pipe(
    Effect.provideService(SessionSettings, sessionSettings),
    Effect.provideService(ProxySettings, proxySettings),
    Effect.provideService(Database, database)
  )
})
