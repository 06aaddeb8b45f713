import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { TagRepository } from "../../tags/TagRepository.ts"

export const TagsHandlers = HttpApiBuilder.group(Api, "tags", (handlers) =>
  Effect.gen(function*() {
    const tags = yield* TagRepository
    return handlers
      .handle("list", () => Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.map(tags.list(workspaceId), (data) => ({ data }))))
      .handle("create", ({ payload }) => Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => tags.create(principal, payload)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => tags.update(workspaceId, params.id, payload)))
      .handle("delete", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(tags.remove(workspaceId, params.id), { id: params.id })))
  }))
