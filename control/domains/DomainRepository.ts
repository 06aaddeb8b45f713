import { Context, Effect, Layer } from "effect"
import { Database } from "../../shared/db/Database.ts"
import { newId, randomBase62 } from "../../shared/ids.ts"
import { toDomainRecord } from "../../shared/links/linkQueries.ts"
import type { LimitReached } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { query, run, transaction, uniqueViolation } from "../db/sql.ts"
import { writeEvents } from "../outbox/outbox.ts"
import { OutboxSignal } from "../outbox/OutboxSignal.ts"
import { domainStatusEvent, linkDeletedEvent } from "../webhooks/eventData.ts"
import { enqueueWebhookEvents } from "../webhooks/events.ts"
import { WebhooksDue } from "../webhooks/WebhooksDue.ts"
import { ensureQuota, type Scope } from "../plans/quota.ts"
import { checkStateOf, DOMAIN_COLUMNS, type DomainRow } from "./domainRow.ts"
import { DomainNotFound, HostTaken, SubdomainKept } from "./errors.ts"
import type { CheckState } from "./verification.ts"

export interface DomainChanges {
  readonly rootRedirectUrl?: string | null | undefined
  readonly notFoundUrl?: string | null | undefined
  readonly expiredUrl?: string | null | undefined
}

/** Domains of the workspaces; every change is announced to the engines through the outbox. */
export class DomainRepository extends Context.Service<DomainRepository, {
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<DomainRow>, DatabaseUnavailable>
  readonly find: (workspaceId: string, id: string) => Effect.Effect<DomainRow, DomainNotFound | DatabaseUnavailable>
  readonly create: (scope: Scope, host: string) => Effect.Effect<DomainRow, HostTaken | LimitReached | DatabaseUnavailable>
  readonly update: (workspaceId: string, id: string, changes: DomainChanges) => Effect.Effect<DomainRow, DomainNotFound | DatabaseUnavailable>
  /** Removes a custom domain and every link on it in one transaction; the workspace subdomain stays. */
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<void, DomainNotFound | SubdomainKept | DatabaseUnavailable>
  /**
   * Stores one check's outcome. The new state is worked out from the row as it is now, under a
   * row lock, so a verify call and the background job finishing together cannot overwrite each
   * other's result; a status change is announced. Undefined when the domain is gone.
   */
  readonly recordCheck: (
    id: string,
    next: (current: CheckState) => CheckState,
    reason: string,
    recheckSeconds: number
  ) => Effect.Effect<DomainRow | undefined, DatabaseUnavailable>
  /**
   * Claims custom domains due for a check with a lease: another control process skips them until
   * the lease runs out, and no transaction stays open while DNS answers.
   */
  readonly claimDue: (limit: number, leaseSeconds: number) => Effect.Effect<ReadonlyArray<DomainRow>, DatabaseUnavailable>
}>()("ricochet/DomainRepository") {}

const found = <A>(row: A | undefined) => (row === undefined ? Effect.fail(DomainNotFound.make()) : Effect.succeed(row))

export const DomainRepositoryLayer = Layer.effect(DomainRepository)(Effect.gen(function*() {
  const database = yield* Database
  const outbox = yield* OutboxSignal
  const due = yield* WebhooksDue
  // The database, and the wake-ups of the workers its commits give work to.
  const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(Database, database), Effect.provideService(OutboxSignal, outbox), Effect.provideService(WebhooksDue, due))
  return DomainRepository.of({
    list: (workspaceId) =>
      query((sql) =>
        sql<DomainRow[]>`SELECT ${sql.unsafe(DOMAIN_COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId}
                         ORDER BY is_primary DESC, created_at, id`
      ).pipe(withDatabase),
    find: (workspaceId, id) =>
      query((sql) => sql<DomainRow[]>`SELECT ${sql.unsafe(DOMAIN_COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id}`)
        .pipe(Effect.flatMap(([row]) => found(row)), withDatabase),
    create: (scope, host) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const [existing] = yield* run(() => tx`SELECT 1 FROM domains WHERE host = ${host}`)
          if (existing !== undefined) return yield* HostTaken.of(host)
          yield* ensureQuota(tx, scope, "customDomains", () =>
            tx<{ n: number }[]>`SELECT count(*)::int AS n FROM domains WHERE workspace_id = ${scope.workspaceId} AND kind = 'custom'`)
          const [row] = yield* run(() =>
            tx.savepoint((sp) =>
              sp<DomainRow[]>`
                INSERT INTO domains (id, workspace_id, host, kind, status, is_primary, verification_token, next_check_at)
                VALUES (${newId("dom")}, ${scope.workspaceId}, ${host}, 'custom', 'pending', false, ${`ricochet-verify=${randomBase62(32)}`}, now())
                RETURNING ${sp.unsafe(DOMAIN_COLUMNS)}`
            )
          ).pipe(uniqueViolation(() => HostTaken.of(host)))
          yield* writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
          return row
        })
      ).pipe(withDatabase),
    update: (workspaceId, id, changes) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const columns: Record<string, string | null> = {}
          if (changes.rootRedirectUrl !== undefined) columns.root_redirect_url = changes.rootRedirectUrl
          if (changes.notFoundUrl !== undefined) columns.not_found_url = changes.notFoundUrl
          if (changes.expiredUrl !== undefined) columns.expired_url = changes.expiredUrl
          const [row] = Object.keys(columns).length === 0
            ? yield* run(() => tx<DomainRow[]>`SELECT ${tx.unsafe(DOMAIN_COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id}`)
            : yield* run(() =>
              tx<DomainRow[]>`UPDATE domains SET ${tx(columns)}, updated_at = clock_timestamp()
                              WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING ${tx.unsafe(DOMAIN_COLUMNS)}`
            )
          if (row === undefined) return yield* DomainNotFound.make()
          if (Object.keys(columns).length > 0) yield* writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
          return row
        })
      ).pipe(withDatabase),
    remove: (workspaceId, id) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const [row] = yield* run(() =>
            tx<DomainRow[]>`SELECT ${tx.unsafe(DOMAIN_COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`
          )
          if (row === undefined) return yield* DomainNotFound.make()
          if (row.kind === "subdomain") return yield* SubdomainKept.of(row.host)
          const links = yield* run(() => tx<{ id: string; slug: string }[]>`DELETE FROM links WHERE domain_id = ${id} RETURNING id, slug`)
          yield* run(() => tx`DELETE FROM domains WHERE id = ${id}`)
          yield* writeEvents(tx, [
            ...links.map((link) => ({ type: "link.deleted" as const, id: link.id, host: row.host, slug: link.slug })),
            { type: "domain.deleted", id, host: row.host }
          ])
          yield* enqueueWebhookEvents(
            tx,
            links.map((link) => linkDeletedEvent(workspaceId, { id: link.id, domainId: id, host: row.host, slug: link.slug }))
          )
        })
      ).pipe(withDatabase),
    recordCheck: (id, next, reason, recheckSeconds) =>
      transaction((tx) =>
        Effect.gen(function*() {
          const [current] = yield* run(() => tx<DomainRow[]>`SELECT ${tx.unsafe(DOMAIN_COLUMNS)} FROM domains WHERE id = ${id} FOR UPDATE`)
          if (current === undefined) return undefined
          const state = next(checkStateOf(current))
          const [row] = yield* run(() =>
            tx<DomainRow[]>`
              UPDATE domains SET
                status = ${state.status},
                verified_at = ${state.verifiedAt},
                consecutive_failures = ${state.consecutiveFailures},
                last_reason = ${reason},
                last_checked_at = now(),
                next_check_at = now() + make_interval(secs => ${recheckSeconds}),
                check_lease_until = NULL,
                updated_at = CASE WHEN status = ${state.status} THEN updated_at ELSE clock_timestamp() END
              WHERE id = ${id}
              RETURNING ${tx.unsafe(DOMAIN_COLUMNS)}`
          )
          if (row.status !== current.status) yield* writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
          const status = row.status
          if (status !== current.status && (status === "verified" || status === "failed")) {
            yield* enqueueWebhookEvents(tx, [domainStatusEvent(row.workspace_id, { id: row.id, host: row.host, status }, reason)])
          }
          return row
        })
      ).pipe(withDatabase),
    claimDue: (limit, leaseSeconds) =>
      query((sql) =>
        sql<DomainRow[]>`
          UPDATE domains SET check_lease_until = now() + make_interval(secs => ${leaseSeconds})
          WHERE id IN (
            SELECT id FROM domains
            WHERE kind = 'custom' AND next_check_at <= now()
              AND (check_lease_until IS NULL OR check_lease_until < now())
            ORDER BY next_check_at
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING ${sql.unsafe(DOMAIN_COLUMNS)}`
      ).pipe(withDatabase)
  })
}))
