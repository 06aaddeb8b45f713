import { argon2id } from "hash-wasm"
import { randomBytes } from "node:crypto"
import type { Sql } from "postgres"
import { newId, randomSlug } from "../../shared/ids.ts"
import { isUniqueViolation, type Queryable } from "../../shared/db/Database.ts"
import { apiError, fieldError, notFound } from "../http/ApiError.ts"
import { writeEvents } from "../outbox/outbox.ts"
import { limitReached, PLAN_LIMITS, type Plan } from "../plans/plans.ts"
import {
  emptyToNull,
  mergeUtm,
  normalizeGeoRules,
  resolveAbTest,
  unknownReference
} from "./linkInput.ts"
import { toLinkRecord } from "../../shared/links/linkQueries.ts"
import { type Cursor, encodeCursor } from "./cursor.ts"
import type { LinkRow } from "./linkRow.ts"
import type { LinkCreate, LinkUpdate } from "./schema.ts"

type Q = Queryable

export interface Scope {
  readonly workspaceId: string
  readonly plan: Plan
}

const select = (sql: Q) => sql`
  SELECT l.*, l.created_at::text AS created_key, d.host,
    COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.name, t.id)
              FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = l.id), '[]'::json) AS tags
  FROM links l JOIN domains d ON d.id = l.domain_id`

export const findLink = async (sql: Q, workspaceId: string, id: string): Promise<LinkRow | undefined> =>
  (await sql<LinkRow[]>`${select(sql)} WHERE l.workspace_id = ${workspaceId} AND l.id = ${id}`)[0]

export const findLinkBySlug = async (sql: Q, workspaceId: string, host: string, slug: string) =>
  (await sql<LinkRow[]>`${select(sql)} WHERE l.workspace_id = ${workspaceId} AND d.host = ${host.toLowerCase()} AND l.slug = ${slug}`)[0]

// --- listing ---------------------------------------------------------------------------------

export interface ListFilters {
  readonly domain?: string
  readonly folderId?: string
  readonly tagIds: ReadonlyArray<string>
  readonly search?: string
  readonly limit: number
  readonly cursor?: Cursor
}

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Newest first by (created_at, id), resuming strictly after the cursor's pair: links created
 * while a client pages through never shift or repeat the pages it has not read yet. The cursor's
 * time goes in as text: as a timestamptz parameter postgres.js would pass it through a JS Date and
 * drop the microseconds, skipping links created within the same millisecond as the page's last.
 */
export const listLinks = async (sql: Q, workspaceId: string, f: ListFilters) => {
  const none = sql``
  const rows = await sql<LinkRow[]>`${select(sql)}
    WHERE l.workspace_id = ${workspaceId}
    ${f.domain !== undefined ? sql`AND d.host = ${f.domain.toLowerCase()}` : none}
    ${f.folderId !== undefined ? sql`AND l.folder_id = ${f.folderId}` : none}
    ${f.tagIds.length > 0 ? sql`AND EXISTS (SELECT 1 FROM link_tags lt WHERE lt.link_id = l.id AND lt.tag_id = ANY(${f.tagIds as string[]}))` : none}
    ${f.search !== undefined && f.search !== ""
      ? sql`AND (l.slug ILIKE ${likePattern(f.search)} OR l.title ILIKE ${likePattern(f.search)} OR l.url ILIKE ${likePattern(f.search)})`
      : none}
    ${f.cursor !== undefined ? sql`AND (l.created_at, l.id) < (${f.cursor.createdKey}::text::timestamptz, ${f.cursor.id})` : none}
    ORDER BY l.created_at DESC, l.id DESC
    LIMIT ${f.limit + 1}`
  const page = rows.slice(0, f.limit)
  return { rows: page, nextCursor: rows.length > f.limit ? encodeCursor(page[page.length - 1]) : null }
}

// --- writes ----------------------------------------------------------------------------------

const hashPassword = (password: string): Promise<string> =>
  argon2id({
    password,
    salt: randomBytes(16),
    // OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
    memorySize: 19_456,
    iterations: 2,
    parallelism: 1,
    hashLength: 32,
    outputType: "encoded"
  })

const resolveDomain = async (tx: Q, workspaceId: string, host: string | undefined) => {
  const rows = host === undefined
    ? await tx<{ id: string; host: string }[]>`SELECT id, host FROM domains WHERE workspace_id = ${workspaceId} AND is_primary`
    : await tx<{ id: string; host: string }[]>`SELECT id, host FROM domains WHERE workspace_id = ${workspaceId} AND host = ${host.toLowerCase()}`
  if (rows[0] === undefined) {
    throw host === undefined
      ? apiError("internal_server_error", "The workspace has no primary domain")
      : fieldError(["domain"], `${JSON.stringify(host)} is not a domain of this workspace`, "unknown_reference")
  }
  return rows[0]
}

const checkFolder = async (tx: Q, workspaceId: string, folderId: string | null | undefined) => {
  if (folderId === undefined || folderId === null) return
  const [row] = await tx`SELECT 1 FROM folders WHERE workspace_id = ${workspaceId} AND id = ${folderId}`
  if (row === undefined) throw unknownReference(["folderId"], "folder", folderId)
}

const checkTags = async (tx: Q, workspaceId: string, tagIds: ReadonlyArray<string> | undefined) => {
  if (tagIds === undefined || tagIds.length === 0) return []
  const unique = [...new Set(tagIds)]
  const found = new Set(
    (await tx<{ id: string }[]>`SELECT id FROM tags WHERE workspace_id = ${workspaceId} AND id = ANY(${unique})`).map((r) => r.id)
  )
  const missing = tagIds.findIndex((id) => !found.has(id))
  if (missing >= 0) throw unknownReference(["tagIds", missing], "tag", tagIds[missing])
  return unique
}

const setTags = async (tx: Q, linkId: string, tagIds: ReadonlyArray<string>) => {
  await tx`DELETE FROM link_tags WHERE link_id = ${linkId}`
  if (tagIds.length > 0) {
    await tx`INSERT INTO link_tags ${tx(tagIds.map((tagId) => ({ link_id: linkId, tag_id: tagId })))}`
  }
}

/** Serialises a workspace's creates of one kind, so two at once cannot both pass the plan's limit. */
export const lockWorkspaceQuota = (tx: Q, workspaceId: string, resource: string) =>
  tx`SELECT pg_advisory_xact_lock(hashtext(${`${resource}:${workspaceId}`}))`

const slugTaken = (host: string, slug: string) =>
  apiError("conflict", `The slug ${JSON.stringify(slug)} is already used on ${host}`)

const jsonOrNull = (tx: Q, value: unknown) => (value === null || value === undefined ? null : tx.json(value as never))

export const createLink = async (sql: Sql, scope: Scope, input: LinkCreate): Promise<LinkRow> => {
  const passwordHash = input.password ? await hashPassword(input.password) : null
  return (await sql.begin(async (tx) => {
    const domain = await resolveDomain(tx, scope.workspaceId, input.domain)
    await checkFolder(tx, scope.workspaceId, input.folderId)
    const tagIds = await checkTags(tx, scope.workspaceId, input.tagIds)
    await lockWorkspaceQuota(tx, scope.workspaceId, "links")
    const [{ n }] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM links WHERE workspace_id = ${scope.workspaceId}`
    if (n >= PLAN_LIMITS[scope.plan].links) throw limitReached(scope.plan, "links")

    const abTest = resolveAbTest(input.url, null, input.abTest)
    if (abTest instanceof Error) throw abTest
    const id = newId("lnk")
    const values = {
      id,
      workspace_id: scope.workspaceId,
      domain_id: domain.id,
      url: input.url,
      title: emptyToNull(input.title) ?? null,
      description: emptyToNull(input.description) ?? null,
      og_image_url: emptyToNull(input.ogImageUrl) ?? null,
      folder_id: input.folderId ?? null,
      redirect_type: input.redirectType ?? 302,
      pass_query: input.passQuery ?? false,
      open_in_app: input.openInApp ?? false,
      open_in_browser: input.openInBrowser ?? false,
      utm: jsonOrNull(tx, mergeUtm(null, input.utm)),
      geo_rules: tx.json(normalizeGeoRules(input.geoRules ?? []) as never),
      device_rules: tx.json((input.deviceRules ?? []) as never),
      expires_at: input.expiresAt ?? null,
      expired_url: input.expiredUrl ?? null,
      ab_test: jsonOrNull(tx, abTest),
      password_hash: passwordHash
    }
    // A chosen slug that is taken is the client's conflict; a random one is simply drawn again.
    for (let attempt = 0; ; attempt++) {
      const slug = input.slug ?? randomSlug()
      try {
        await tx.savepoint((sp) => sp`INSERT INTO links ${sp({ ...values, slug })}`)
        break
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        if (input.slug !== undefined) throw slugTaken(domain.host, input.slug)
        if (attempt >= 10) throw apiError("conflict", "Could not find a free random slug; choose one")
      }
    }
    await setTags(tx, id, tagIds)
    const row = (await findLink(tx, scope.workspaceId, id))!
    await writeEvents(tx, [{ type: "link.upserted", link: toLinkRecord(row) }])
    return row
  })) as LinkRow
}

export const updateLink = async (sql: Sql, scope: Scope, id: string, input: LinkUpdate): Promise<LinkRow> => {
  const passwordHash = input.password ? await hashPassword(input.password) : input.password === undefined ? undefined : null
  return (await sql.begin(async (tx) => {
    const [locked] = await tx`SELECT id FROM links WHERE workspace_id = ${scope.workspaceId} AND id = ${id} FOR UPDATE`
    if (locked === undefined) throw notFound("Link")
    const existing = (await findLink(tx, scope.workspaceId, id))!
    await checkFolder(tx, scope.workspaceId, input.folderId)
    const tagIds = input.tagIds === undefined ? undefined : await checkTags(tx, scope.workspaceId, input.tagIds)

    const url = input.url ?? existing.url
    const abTest = resolveAbTest(url, existing.ab_test, input.abTest)
    if (abTest instanceof Error) throw abTest

    const changes: Record<string, unknown> = {}
    const set = (column: string, value: unknown) => {
      if (value !== undefined) changes[column] = value
    }
    set("url", input.url)
    set("slug", input.slug)
    set("title", emptyToNull(input.title))
    set("description", emptyToNull(input.description))
    set("og_image_url", emptyToNull(input.ogImageUrl))
    set("folder_id", input.folderId)
    set("redirect_type", input.redirectType)
    set("pass_query", input.passQuery)
    set("open_in_app", input.openInApp)
    set("open_in_browser", input.openInBrowser)
    if (input.utm !== undefined) changes.utm = jsonOrNull(tx, mergeUtm(existing.utm, input.utm))
    if (input.geoRules !== undefined) changes.geo_rules = tx.json(normalizeGeoRules(input.geoRules) as never)
    if (input.deviceRules !== undefined) changes.device_rules = tx.json(input.deviceRules as never)
    set("expires_at", input.expiresAt)
    set("expired_url", input.expiredUrl)
    if (input.abTest !== undefined || input.url !== undefined) changes.ab_test = jsonOrNull(tx, abTest)
    set("password_hash", passwordHash)

    if (Object.keys(changes).length > 0) {
      try {
        await tx.savepoint((sp) => sp`UPDATE links SET ${sp(changes)}, updated_at = clock_timestamp() WHERE id = ${id}`)
      } catch (error) {
        if (isUniqueViolation(error) && input.slug !== undefined) throw slugTaken(existing.host, input.slug)
        throw error
      }
    }
    if (tagIds !== undefined) {
      await setTags(tx, id, tagIds)
      if (Object.keys(changes).length === 0) await tx`UPDATE links SET updated_at = clock_timestamp() WHERE id = ${id}`
    }
    const row = (await findLink(tx, scope.workspaceId, id))!
    const events: Array<Parameters<typeof writeEvents>[1][number]> = []
    // The engines key their caches by host and slug: a renamed slug must leave the old key too.
    if (row.slug !== existing.slug) events.push({ type: "link.deleted", id, host: existing.host, slug: existing.slug })
    events.push({ type: "link.upserted", link: toLinkRecord(row) })
    await writeEvents(tx, events)
    return row
  })) as LinkRow
}

export const deleteLink = async (sql: Sql, workspaceId: string, id: string): Promise<void> => {
  await sql.begin(async (tx) => {
    const [row] = await tx<{ host: string; slug: string }[]>`
      DELETE FROM links l USING domains d
      WHERE l.workspace_id = ${workspaceId} AND l.id = ${id} AND d.id = l.domain_id
      RETURNING d.host, l.slug`
    if (row === undefined) throw notFound("Link")
    await writeEvents(tx, [{ type: "link.deleted", id, host: row.host, slug: row.slug }])
  })
}
