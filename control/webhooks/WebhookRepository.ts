import { Context, Effect, Layer } from "effect"
import { WebhookSettings } from "./WebhookSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { newId } from "../../shared/ids.ts"
import { unknownReference, ValidationFailed } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { query, run, transaction } from "../db/sql.ts"
import { toIso } from "../kernel/fields.ts"
import { countWebhookDelivery } from "../ops/metrics.ts"
import { WebhookNotFound } from "./errors.ts"
import type { Webhook, WebhookCreate, WebhookDelivery, WebhookEventType, WebhookUpdate } from "./schema.ts"
import { resetOnEnable, trimBacklogs } from "./deliveryQueue.ts"
import { WebhooksDue } from "./WebhooksDue.ts"
import { newSecret } from "./signing.ts"
import { refuseTarget } from "./targetUrl.ts"

/** Webhooks of a workspace and their delivery log. */
export class WebhookRepository extends Context.Service<WebhookRepository, {
  readonly list: (workspaceId: string) => Effect.Effect<Array<Webhook>, DatabaseUnavailable>
  readonly find: (workspaceId: string, id: string) => Effect.Effect<Webhook, WebhookNotFound | DatabaseUnavailable>
  readonly create: (workspaceId: string, input: WebhookCreate) => Effect.Effect<Webhook & { readonly secret: string }, ValidationFailed | DatabaseUnavailable>
  readonly update: (workspaceId: string, id: string, input: WebhookUpdate) => Effect.Effect<Webhook, WebhookNotFound | ValidationFailed | DatabaseUnavailable>
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<void, WebhookNotFound | DatabaseUnavailable>
  readonly deliveries: (
    workspaceId: string,
    id: string,
    page: { readonly limit: number; readonly cursor?: string | undefined }
  ) => Effect.Effect<{ data: Array<WebhookDelivery>; nextCursor: string | null }, WebhookNotFound | DatabaseUnavailable>
}>()("ricochet/WebhookRepository") {}

interface WebhookRow {
  id: string
  url: string
  events: Array<WebhookEventType>
  link_id: string | null
  domain_id: string | null
  enabled: boolean
  disabled_reason: string | null
  created_at: Date
  updated_at: Date
}

const COLUMNS = "id, url, events, link_id, domain_id, enabled, disabled_reason, created_at, updated_at"

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  linkId: row.link_id,
  domainId: row.domain_id,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!
})

interface DeliveryRow {
  id: string
  message_id: string
  event_type: WebhookEventType
  status: "pending" | "delivered" | "failed"
  attempts: number
  response_status: number | null
  response_excerpt: string | null
  last_error: string | null
  created_at: Date
  last_attempt_at: Date | null
  next_attempt_at: Date
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: String(row.id),
  messageId: row.message_id,
  event: row.event_type,
  status: row.status,
  attempts: row.attempts,
  responseStatus: row.response_status,
  responseExcerpt: row.response_excerpt,
  error: row.last_error,
  createdAt: toIso(row.created_at)!,
  lastAttemptAt: toIso(row.last_attempt_at),
  nextAttemptAt: row.status === "pending" ? toIso(row.next_attempt_at) : null
})

export const WebhookRepositoryLayer = Layer.effect(WebhookRepository)(Effect.gen(function*() {
  const database = yield* Database
  const due = yield* WebhooksDue
  const { webhooksAllowLoopback, webhookBacklog } = yield* WebhookSettings
  const withDatabase = Effect.provideService(Database, database)

  const checkUrl = (url: string | undefined) => {
    const refused = url === undefined ? undefined : refuseTarget(url, webhooksAllowLoopback)
    return refused === undefined ? Effect.void : Effect.fail(ValidationFailed.at(["url"], refused, "invalid_url"))
  }

  /** A filter must name a link or domain of the workspace. */
  const checkFilters = (sql: Parameters<Parameters<typeof transaction>[0]>[0], workspaceId: string, linkId: string | null | undefined, domainId: string | null | undefined) =>
    Effect.gen(function*() {
      if (linkId !== undefined && linkId !== null) {
        const [row] = yield* run(() => sql`SELECT 1 FROM links WHERE workspace_id = ${workspaceId} AND id = ${linkId}`)
        if (row === undefined) return yield* new ValidationFailed(unknownReference(["linkId"], `No link ${JSON.stringify(linkId)} in this workspace`))
      }
      if (domainId !== undefined && domainId !== null) {
        const [row] = yield* run(() => sql`SELECT 1 FROM domains WHERE workspace_id = ${workspaceId} AND id = ${domainId}`)
        if (row === undefined) return yield* new ValidationFailed(unknownReference(["domainId"], `No domain ${JSON.stringify(domainId)} in this workspace`))
      }
    })

  const findRow = (workspaceId: string, id: string) =>
    query((sql) => sql<WebhookRow[]>`SELECT ${sql.unsafe(COLUMNS)} FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id}`).pipe(
      Effect.flatMap(([row]) => (row === undefined ? Effect.fail(WebhookNotFound.make()) : Effect.succeed(row)))
    )

  return WebhookRepository.of({
    list: (workspaceId) =>
      query((sql) => sql<WebhookRow[]>`SELECT ${sql.unsafe(COLUMNS)} FROM webhooks WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`)
        .pipe(Effect.map((rows) => rows.map(toWebhook)), withDatabase),
    find: (workspaceId, id) => findRow(workspaceId, id).pipe(Effect.map(toWebhook), withDatabase),
    create: (workspaceId, input) =>
      Effect.andThen(
        checkUrl(input.url),
        transaction((tx) =>
          Effect.gen(function*() {
            yield* checkFilters(tx, workspaceId, input.linkId, input.domainId)
            const secret = newSecret()
            const [row] = yield* run(() =>
              tx<WebhookRow[]>`
                INSERT INTO webhooks (id, workspace_id, url, events, link_id, domain_id, secret)
                VALUES (${newId("wh")}, ${workspaceId}, ${input.url}, ${input.events as Array<string>}, ${input.linkId ?? null},
                        ${input.domainId ?? null}, ${secret})
                RETURNING ${tx.unsafe(COLUMNS)}`
            )
            return { ...toWebhook(row), secret }
          })
        )
      ).pipe(withDatabase),
    update: (workspaceId, id, input) =>
      Effect.andThen(
        checkUrl(input.url),
        transaction((tx) =>
          Effect.gen(function*() {
            const [existing] = yield* run(() => tx<WebhookRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`)
            if (existing === undefined) return yield* WebhookNotFound.make()
            yield* checkFilters(tx, workspaceId, input.linkId, input.domainId)
            const changes: Record<string, unknown> = {}
            if (input.url !== undefined) changes.url = input.url
            if (input.events !== undefined) changes.events = input.events as Array<string>
            if (input.linkId !== undefined) changes.link_id = input.linkId
            if (input.domainId !== undefined) changes.domain_id = input.domainId
            const enabling = input.enabled === true
            if (input.enabled !== undefined) {
              changes.enabled = input.enabled
              // Re-enabled: its failure streak starts over (so it is not disabled again at the next
              // failure) and its breaker closes; what waited for it is cut to the backlog bound first.
              if (enabling) Object.assign(changes, resetOnEnable)
            }
            if (Object.keys(changes).length === 0) return toWebhook(existing)
            if (enabling) {
              for (const { dropped } of yield* run(() => trimBacklogs(tx, webhookBacklog, id))) {
                yield* Effect.logWarning(`webhook ${id}: ${dropped} oldest unsent deliveries dropped on re-enabling, over its backlog of ${webhookBacklog}`)
                yield* countWebhookDelivery("dropped", dropped)
              }
            }
            const [row] = yield* run(() =>
              tx<WebhookRow[]>`UPDATE webhooks SET ${tx(changes)}, updated_at = now() WHERE id = ${id} RETURNING ${tx.unsafe(COLUMNS)}`
            )
            if (enabling) yield* due.mark
            return toWebhook(row)
          })
        )
      ).pipe(withDatabase),
    remove: (workspaceId, id) =>
      query((sql) => sql`DELETE FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`).pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(WebhookNotFound.make()) : Effect.void)),
        withDatabase
      ),
    deliveries: (workspaceId, id, page) =>
      Effect.gen(function*() {
        yield* findRow(workspaceId, id)
        const rows = yield* query((sql) =>
          sql<DeliveryRow[]>`
            SELECT id, message_id, event_type, status, attempts, response_status, response_excerpt, last_error, created_at,
                   last_attempt_at, next_attempt_at
            FROM webhook_deliveries
            WHERE webhook_id = ${id} ${page.cursor === undefined ? sql`` : sql`AND id < ${page.cursor}::bigint`}
            ORDER BY id DESC
            LIMIT ${page.limit + 1}`
        )
        const data = rows.slice(0, page.limit).map(toDelivery)
        return { data, nextCursor: rows.length > page.limit ? data[data.length - 1].id : null }
      }).pipe(withDatabase)
  })
}))
