import { Effect, Layer } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { Forbidden } from "./errors.ts"
import { CurrentPrincipal } from "./Principal.ts"

/** Endpoints only a workspace's admins may call: a member (by key or session) gets 403 forbidden. */
export class AdminOnly extends HttpApiMiddleware.Service<AdminOnly, { requires: CurrentPrincipal }>()("ricochet/AdminOnly", {
  error: Forbidden.response
}) {}

export const AdminOnlyLayer = Layer.succeed(AdminOnly)((httpEffect) =>
  Effect.gen(function*() {
    const principal = yield* CurrentPrincipal
    if (principal.role !== "admin") return yield* new Forbidden({ message: "This operation needs an admin" })
    return yield* httpEffect
  }))
