import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ProxySettings } from "../../../shared/settings/ProxySettings.ts"
import { Database } from "../../../shared/db/Database.ts"
import { Api } from "../../api/Api.ts"
import { clientAddress } from "../AdmissionLayer.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { LiveHub } from "../../live/LiveHub.ts"
import { SessionService } from "../../sessions/SessionService.ts"

export const SignInHandlers = HttpApiBuilder.group(Api, "signIn", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* SessionService
    const { trustProxy } = yield* ProxySettings
    const database = yield* Database
    return handlers.handle("signIn", ({ payload }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        return yield* sessions.signIn(payload, clientAddress(request, trustProxy))
      }).pipe(Effect.provideService(Database, database)))
  }))

export const SessionsHandlers = HttpApiBuilder.group(Api, "sessions", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* SessionService
    const live = yield* LiveHub
    return handlers
      .handle("current", () => Effect.flatMap(Effect.service(CurrentPrincipal), sessions.current))
      .handle("switch", ({ payload }) => Effect.flatMap(Effect.service(CurrentPrincipal), (p) => sessions.switchTo(p, payload.workspaceId)))
      // The session's live streams in this process end with it (other processes' at their next heartbeat).
      .handle("signOut", () =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (p) =>
          Effect.as(Effect.tap(sessions.signOut(p), () => Effect.sync(() => live.closeCredential(p.credentialId))), { signedOut: true as const })))
  }))
