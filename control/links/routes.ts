import { Effect } from "effect"
import { Configuration } from "../../shared/config.ts"
import { query } from "../db/query.ts"
import { fieldError, notFound } from "../http/ApiError.ts"
import { DeletionResult, IdParams } from "../http/fields.ts"
import { route } from "../http/route.ts"
import { checkLinkPlan } from "./linkInput.ts"
import { toLink } from "./linkRow.ts"
import { decodeCursor } from "./cursor.ts"
import { createLink, deleteLink, findLink, findLinkBySlug, listLinks, updateLink } from "./repository.ts"
import { commaList, Link, LinkCreate, LinkInfoQuery, LinkPage, LinkUpdate, ListLinksQuery } from "./schema.ts"

const scheme = Effect.gen(function*() {
  return (yield* Configuration).linkScheme
})

export const linkRoutes = [
  route({
    method: "GET",
    path: "/v1/links",
    group: "links",
    summary: "List links, newest first",
    query: ListLinksQuery,
    success: LinkPage,
    status: 200,
    handler: ({ principal, query: q }) =>
      Effect.gen(function*() {
        const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor)
        if (q.cursor !== undefined && cursor === undefined) {
          return yield* fieldError(["cursor"], "Not a cursor this API returned", "invalid_cursor")
        }
        const page = yield* query((sql) =>
          listLinks(sql, principal.workspaceId, {
            domain: q.domain,
            folderId: q.folderId,
            tagIds: commaList(q.tagIds),
            search: q.search,
            limit: q.limit ?? 50,
            cursor
          })
        )
        const s = yield* scheme
        return { data: page.rows.map((row) => toLink(row, s)), nextCursor: page.nextCursor }
      })
  }),
  route({
    method: "POST",
    path: "/v1/links",
    group: "links",
    summary: "Create a link",
    body: LinkCreate,
    success: Link,
    status: 201,
    handler: ({ principal, body }) =>
      Effect.gen(function*() {
        const denied = checkLinkPlan(principal.plan, body)
        if (denied) return yield* denied
        const row = yield* query((sql) => createLink(sql, principal, body))
        return toLink(row, yield* scheme)
      })
  }),
  route({
    method: "GET",
    path: "/v1/links/info",
    group: "links",
    summary: "Find a link by its domain and slug",
    query: LinkInfoQuery,
    success: Link,
    status: 200,
    handler: ({ principal, query: q }) =>
      Effect.gen(function*() {
        const row = yield* query((sql) => findLinkBySlug(sql, principal.workspaceId, q.domain, q.slug))
        if (row === undefined) return yield* notFound("Link")
        return toLink(row, yield* scheme)
      })
  }),
  route({
    method: "GET",
    path: "/v1/links/:id",
    group: "links",
    summary: "Get a link",
    params: IdParams,
    success: Link,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.gen(function*() {
        const row = yield* query((sql) => findLink(sql, principal.workspaceId, params.id))
        if (row === undefined) return yield* notFound("Link")
        return toLink(row, yield* scheme)
      })
  }),
  route({
    method: "PATCH",
    path: "/v1/links/:id",
    group: "links",
    summary: "Update a link; only the fields sent change",
    params: IdParams,
    body: LinkUpdate,
    success: Link,
    status: 200,
    handler: ({ principal, params, body }) =>
      Effect.gen(function*() {
        const denied = checkLinkPlan(principal.plan, body)
        if (denied) return yield* denied
        const row = yield* query((sql) => updateLink(sql, principal, params.id, body))
        return toLink(row, yield* scheme)
      })
  }),
  route({
    method: "DELETE",
    path: "/v1/links/:id",
    group: "links",
    summary: "Delete a link",
    params: IdParams,
    success: DeletionResult,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.as(query((sql) => deleteLink(sql, principal.workspaceId, params.id)), { id: params.id })
  })
]
