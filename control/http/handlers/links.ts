import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { LinkSettings } from "../../../shared/settings/LinkSettings.ts"
import { Api } from "../../api/Api.ts"
import { ValidationFailed } from "../../kernel/errors.ts"
import { CurrentPrincipal } from "../../kernel/Principal.ts"
import { bulkCreate, bulkDelete, bulkUpdate } from "../../links/bulk.ts"
import { qrResponse } from "../../links/qr/qrResponse.ts"
import { qrOptions } from "../../links/qr/render.ts"
import { QrRenderer } from "../../links/qr/QrRenderer.ts"
import { EXPORT_BATCH, exportCsv } from "../../links/export/exportStream.ts"
import { ImportJobRepository } from "../../links/import/ImportJobRepository.ts"
import { readUpload } from "../../links/import/readUpload.ts"
import { idempotencyKeyOf, storeUpload } from "../../links/import/storeUpload.ts"
import { decodeCursor } from "../../links/cursor.ts"
import { checkLinkPlan } from "../../links/linkInput.ts"
import { LinkRepository } from "../../links/LinkRepository.ts"
import { toLink } from "../../links/linkRow.ts"
import { commaList } from "../../kernel/fields.ts"

export const LinksHandlers = HttpApiBuilder.group(Api, "links", (handlers) =>
  Effect.gen(function*() {
    const links = yield* LinkRepository
    const imports = yield* ImportJobRepository
    const linkBase = yield* LinkSettings
    const qr = yield* QrRenderer
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
          return { data: page.rows.map((row) => toLink(row, linkBase)), nextCursor: page.nextCursor }
        }))
      .handle("export", ({ query }) =>
        Effect.gen(function*() {
          const { workspaceId } = yield* CurrentPrincipal
          const filters = { domain: query.domain, folderId: query.folderId, tagIds: commaList(query.tagIds), search: query.search, limit: EXPORT_BATCH }
          const batch = (cursor: string | undefined) =>
            Effect.map(links.list(workspaceId, { ...filters, cursor: cursor === undefined ? undefined : decodeCursor(cursor) }), (page) => ({
              links: page.rows.map((row) => toLink(row, linkBase)),
              nextCursor: page.nextCursor
            }))
          const first = yield* batch(undefined)
          return HttpServerResponse.stream(exportCsv(first, batch), {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": 'attachment; filename="links.csv"' }
          })
        }))
      .handleRaw("import", ({ request }) =>
        Effect.gen(function*() {
          const { workspaceId } = yield* CurrentPrincipal
          const key = yield* idempotencyKeyOf(request)
          const source = yield* readUpload(request)
          const reservation = yield* imports.reserve(workspaceId, key)
          if (reservation._tag === "Existing") return reservation.job
          return yield* storeUpload(imports, reservation.id, source)
        }))
      .handle("importStatus", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => imports.find(workspaceId, params.id)))
      .handle("cancelImport", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => imports.cancel(workspaceId, params.id)))
      .handle("create", ({ payload }) =>
        Effect.flatMap(withPlan(payload), (principal) => Effect.map(links.create(principal, payload), (row) => toLink(row, linkBase))))
      .handle("bulkCreate", ({ payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) =>
          Effect.map(bulkCreate(links, principal, payload.links, linkBase), (data) => ({ data }))))
      .handle("bulkUpdate", ({ payload: { ids, ...fields } }) =>
        // The fields are the same for every link: a plan gate refuses the whole request, as it would each item.
        Effect.flatMap(withPlan(fields), (principal) =>
          Effect.map(bulkUpdate(links, principal, ids, fields, linkBase), (data) => ({ data }))))
      .handle("bulkDelete", ({ payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(bulkDelete(links, workspaceId, payload.ids), (data) => ({ data }))))
      .handle("info", ({ query }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(links.findBySlug(workspaceId, query.domain, query.slug), (row) => toLink(row, linkBase))))
      .handle("get", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) =>
          Effect.map(links.find(workspaceId, params.id), (row) => toLink(row, linkBase))))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(withPlan(payload), (principal) =>
          Effect.map(links.update(principal, params.id, payload), (row) => toLink(row, linkBase))))
      .handle("delete", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), ({ workspaceId }) => Effect.as(links.remove(workspaceId, params.id), { id: params.id })))
  
      .handle("qr", ({ params, query }) =>
        Effect.gen(function*() {
          const { workspaceId } = yield* CurrentPrincipal
          const options = qrOptions(query)
          if ("_tag" in options) return yield* options
          const link = toLink(yield* links.find(workspaceId, params.id), linkBase)
          return qrResponse(yield* qr.render(workspaceId, link.id, link.shortLink, options))
        }))
  }))
