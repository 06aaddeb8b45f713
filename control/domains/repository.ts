import type { Sql } from "postgres"
import { newId, randomBase62 } from "../../shared/ids.ts"
import { isUniqueViolation, type Queryable } from "../../shared/db/Database.ts"
import { apiError, notFound } from "../http/ApiError.ts"
import { toIso } from "../http/fields.ts"
import { lockWorkspaceQuota, type Scope } from "../links/repository.ts"
import { writeEvents } from "../outbox/outbox.ts"
import { limitReached, PLAN_LIMITS } from "../plans/plans.ts"
import { toDomainRecord } from "../../shared/links/linkQueries.ts"
import type { Domain, DomainStatus } from "./schema.ts"
import { type CheckState, type DnsTargets, expectedRecords } from "./verification.ts"

type Q = Queryable

export interface DomainRow {
  readonly id: string
  readonly workspace_id: string
  readonly host: string
  readonly kind: "subdomain" | "custom"
  readonly status: DomainStatus
  readonly is_primary: boolean
  readonly verified_at: Date | null
  readonly verification_token: string
  readonly root_redirect_url: string | null
  readonly not_found_url: string | null
  readonly expired_url: string | null
  readonly created_at: Date
  readonly updated_at: Date
  readonly consecutive_failures: number
  readonly last_reason: string | null
}

export const toDomain = (row: DomainRow, targets: DnsTargets): Domain => ({
  id: row.id,
  host: row.host,
  kind: row.kind,
  status: row.status,
  primary: row.is_primary,
  verifiedAt: toIso(row.verified_at),
  rootRedirectUrl: row.root_redirect_url,
  notFoundUrl: row.not_found_url,
  expiredUrl: row.expired_url,
  dnsRecords: row.kind === "custom" ? expectedRecords(row.host, row.verification_token, targets) : [],
  createdAt: toIso(row.created_at)!,
  updatedAt: toIso(row.updated_at)!
})

export const checkStateOf = (row: DomainRow): CheckState => ({
  status: row.status,
  createdAt: new Date(row.created_at),
  verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
  consecutiveFailures: row.consecutive_failures
})

const COLUMNS = "id, workspace_id, host, kind, status, is_primary, verified_at, verification_token, root_redirect_url, not_found_url, expired_url, created_at, updated_at, consecutive_failures, last_reason"

export const listDomains = (sql: Q, workspaceId: string) =>
  sql<DomainRow[]>`SELECT ${sql.unsafe(COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId}
                   ORDER BY is_primary DESC, created_at, id`

export const findDomain = async (sql: Q, workspaceId: string, id: string) =>
  (await sql<DomainRow[]>`SELECT ${sql.unsafe(COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id}`)[0]

const hostTaken = (host: string) => apiError("conflict", `${host} is already registered with Ricochet`)

export const createDomain = async (sql: Sql, scope: Scope, host: string): Promise<DomainRow> =>
  (await sql.begin(async (tx) => {
    const [existing] = await tx`SELECT 1 FROM domains WHERE host = ${host}`
    if (existing !== undefined) throw hostTaken(host)
    await lockWorkspaceQuota(tx, scope.workspaceId, "customDomains")
    const [{ n }] = await tx<{ n: number }[]>`
      SELECT count(*)::int AS n FROM domains WHERE workspace_id = ${scope.workspaceId} AND kind = 'custom'`
    if (n >= PLAN_LIMITS[scope.plan].customDomains) throw limitReached(scope.plan, "customDomains")
    let row: DomainRow
    try {
      ;[row] = await tx.savepoint((sp) => sp<DomainRow[]>`
        INSERT INTO domains (id, workspace_id, host, kind, status, is_primary, verification_token, next_check_at)
        VALUES (${newId("dom")}, ${scope.workspaceId}, ${host}, 'custom', 'pending', false, ${`ricochet-verify=${randomBase62(32)}`}, now())
        RETURNING ${sp.unsafe(COLUMNS)}`)
    } catch (error) {
      if (isUniqueViolation(error)) throw hostTaken(host)
      throw error
    }
    await writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
    return row
  })) as DomainRow

export const updateDomain = async (
  sql: Sql,
  workspaceId: string,
  id: string,
  changes: { rootRedirectUrl?: string | null; notFoundUrl?: string | null; expiredUrl?: string | null }
): Promise<DomainRow> =>
  (await sql.begin(async (tx) => {
    const columns: Record<string, string | null> = {}
    if (changes.rootRedirectUrl !== undefined) columns.root_redirect_url = changes.rootRedirectUrl
    if (changes.notFoundUrl !== undefined) columns.not_found_url = changes.notFoundUrl
    if (changes.expiredUrl !== undefined) columns.expired_url = changes.expiredUrl
    const [row] = Object.keys(columns).length === 0
      ? await tx<DomainRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id}`
      : await tx<DomainRow[]>`UPDATE domains SET ${tx(columns)}, updated_at = clock_timestamp()
                              WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING ${tx.unsafe(COLUMNS)}`
    if (row === undefined) throw notFound("Domain")
    if (Object.keys(columns).length > 0) await writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
    return row
  })) as DomainRow

/**
 * Removes a custom domain and every link on it in one transaction, announcing each removal so
 * engines stop serving them. The workspace subdomain stays.
 */
export const deleteDomain = async (sql: Sql, workspaceId: string, id: string): Promise<void> => {
  await sql.begin(async (tx) => {
    const [row] = await tx<DomainRow[]>`
      SELECT ${tx.unsafe(COLUMNS)} FROM domains WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`
    if (row === undefined) throw notFound("Domain")
    if (row.kind === "subdomain") {
      throw apiError("conflict", `${row.host} is the workspace subdomain; it cannot be removed`)
    }
    const links = await tx<{ id: string; slug: string }[]>`DELETE FROM links WHERE domain_id = ${id} RETURNING id, slug`
    await tx`DELETE FROM domains WHERE id = ${id}`
    await writeEvents(tx, [
      ...links.map((link) => ({ type: "link.deleted" as const, id: link.id, host: row.host, slug: link.slug })),
      { type: "domain.deleted", id, host: row.host }
    ])
  })
}

/**
 * Stores one check's outcome. The new state is worked out from the row as it is now, under a row
 * lock, so a verify call and the background job finishing together cannot overwrite each other's
 * result; a status change is announced to the engines.
 */
export const recordCheck = async (
  sql: Sql,
  id: string,
  next: (current: CheckState) => CheckState,
  reason: string,
  recheckSeconds: number
): Promise<DomainRow | undefined> =>
  (await sql.begin(async (tx) => {
    const [current] = await tx<DomainRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM domains WHERE id = ${id} FOR UPDATE`
    if (current === undefined) return undefined
    const state = next(checkStateOf(current))
    const [row] = await tx<DomainRow[]>`
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
      RETURNING ${tx.unsafe(COLUMNS)}`
    if (row.status !== current.status) {
      await writeEvents(tx, [{ type: "domain.upserted", domain: toDomainRecord(row) }])
    }
    return row
  })) as DomainRow | undefined

/**
 * Claims custom domains due for a check with a lease: another control process skips them until
 * the lease runs out, and no transaction stays open while DNS answers.
 */
export const claimDueDomains = (sql: Sql, limit: number, leaseSeconds: number) =>
  sql<DomainRow[]>`
    UPDATE domains SET check_lease_until = now() + make_interval(secs => ${leaseSeconds})
    WHERE id IN (
      SELECT id FROM domains
      WHERE kind = 'custom' AND next_check_at <= now()
        AND (check_lease_until IS NULL OR check_lease_until < now())
      ORDER BY next_check_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING ${sql.unsafe(COLUMNS)}`
