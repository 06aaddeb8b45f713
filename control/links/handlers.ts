import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Configuration } from "../../shared/config.ts"
import { Api } from "../api/Api.ts"
import { ValidationFailed } from "../api/errors.ts"
import { CurrentPrincipal } from "../api/Principal.ts"
import { decodeCursor } from "./cursor.ts"
import { checkLinkPlan } from "./linkInput.ts"
import { LinkRepository } from "./LinkRepository.ts"
import { toLink } from "./linkRow.ts"
import { commaList } from "./schema.ts"

export const LinksHandlers = HttpApiBuilder.group(Api, "links", (handlers) =>
  Effect.gen(function*() {
    const links = yield* LinkRepository
    const { linkScheme } = yield* Configuration
    const withPlan = <A extends Parameters<typeof checkLinkPlan>[1]>(input: A) =>
      Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => {
        const denied = checkLinkPlan(principal.plan, input)
        return denied === undefined ? Effect.succeed(principal) : Effect.fail(denied)
      })
    return handlers
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const { workspaceId } = yield* CurrentPrincipal
          const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
          if (query.cursor !== undefined && cursor === undefined) {
            return yield* ValidationFailed.at(["cursor"], "Not a cursor this API returned", "invalid_cursor")
          }
          const page = yield* links.list(workspaceId, {
            domain: query.domain,
            folderId: query.folderId,
            tagIds: commaList(query.tagIds),
            search: query.search,
            limit: query.limit ?? 50,
            cursor
          })
          return { data: page.rows.map((row) => toLink(row, linkScheme)), nextCursor: page.nextCursor }
        }))
      .handle("create", ({ payload }) =>
        Effect.flatMap(withPlan(payload), (principal) => Effect.map(links.create(principal, payload), (row) => toLink(row, linkScheme))))
      .handle("info", ({ query }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(links.findBySlug(workspaceId, query.domain, query.slug), (row) => toLink(row, linkScheme))))
      .handle("get", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(links.find(workspaceId, params.id), (row) => toLink(row, linkScheme))))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(withPlan(payload), (principal) =>
          Effect.map(links.update(principal, params.id, payload), (row) => toLink(row, linkScheme))))
      .handle("delete", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(links.remove(workspaceId, params.id), { id: params.id })))
  }))
