import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../api/Api.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { FolderRepository } from "../../folders/FolderRepository.ts"

export const FoldersHandlers = HttpApiBuilder.group(Api, "folders", (handlers) =>
  Effect.gen(function*() {
    const folders = yield* FolderRepository
    return handlers
      .handle("list", () => Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.map(folders.list(workspaceId), (data) => ({ data }))))
      .handle("create", ({ payload }) => Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => folders.create(principal, payload.name)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => folders.rename(workspaceId, params.id, payload.name)))
      .handle("delete", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(folders.remove(workspaceId, params.id), { id: params.id })))
  }))
