import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { KeyRepository } from "../../keys/KeyRepository.ts"

export const KeysHandlers = HttpApiBuilder.group(Api, "keys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* KeyRepository
    return handlers
      .handle("list", () => Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.map(keys.list(workspaceId), (data) => ({ data }))))
      .handle("create", ({ payload }) => Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => keys.create(principal, payload)))
      .handle("revoke", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(keys.revoke(workspaceId, params.id), { id: params.id })))
  }))
