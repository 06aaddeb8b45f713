import type { LinkBase } from "../../shared/links/shortLink.ts"
import { Context, Effect, Layer, Result } from "effect"
import { argon2id } from "hash-wasm"
import { randomBytes } from "node:crypto"
import type { TransactionSql } from "postgres"
import { LinkSettings } from "../../shared/settings/LinkSettings.ts"
import { Database, type DatabaseError, type Queryable } from "../../shared/db/Database.ts"
import { newId, randomSlug } from "../../shared/ids.ts"
import { type LimitReached, unknownReference, type ValidationFailed } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { query, run, savepoint, transaction, uniqueViolation } from "../db/sql.ts"
import { writeEvents } from "../outbox/outbox.ts"
import { OutboxSignal } from "../outbox/OutboxSignal.ts"
import { linkDeletedEvent } from "../webhooks/eventData.ts"
import { linkEvent } from "./linkEvent.ts"
import { enqueueWebhookEvents } from "../webhooks/events.ts"
import { WebhooksDue } from "../webhooks/WebhooksDue.ts"
import { ensureQuota, quotaOf, type Scope } from "../plans/quota.ts"
import { type Cursor, encodeCursor } from "./cursor.ts"
import { LinkNotFound, SlugTaken } from "./errors.ts"
import { emptyToNull, mergeUtm, normalizeGeoRules, resolveAbTest } from "./linkInput.ts"
import { type LinkRow, type StoredLink, toLink, toStoredLink } from "./linkRow.ts"
import type { LinkCreate, LinkUpdate } from "./schema.ts"
import { DomainUnknown, FolderUnknown, TagUnknown } from "../kernel/unknownReferences.ts"

export interface ListFilters {
  readonly domain?: string | undefined
  readonly folderId?: string | undefined
  readonly tagIds: ReadonlyArray<string>
  readonly search?: string | undefined
  readonly limit: number
  readonly cursor?: Cursor | undefined
}

export interface LinkPageRows {
  readonly rows: ReadonlyArray<StoredLink>
  readonly nextCursor: string | null
}

/** Why one link could not be created. */
export type CreateFailure = SlugTaken | DomainUnknown | FolderUnknown | TagUnknown | LimitReached | ValidationFailed

/** Links of a workspace, in PostgreSQL; every change also writes its events to the outbox. */
export class LinkRepository extends Context.Service<LinkRepository, {
  readonly list: (workspaceId: string, filters: ListFilters) => Effect.Effect<LinkPageRows, DatabaseUnavailable>
  readonly find: (workspaceId: string, id: string) => Effect.Effect<StoredLink, LinkNotFound | DatabaseUnavailable>
  readonly findBySlug: (workspaceId: string, host: string, slug: string) => Effect.Effect<StoredLink, LinkNotFound | DatabaseUnavailable>
  readonly create: (
    scope: Scope,
    input: LinkCreate
  ) => Effect.Effect<StoredLink, CreateFailure | DatabaseUnavailable>
  /** Each input created as `create` would, in one transaction; the item's own failure in its place. */
  readonly createMany: (
    scope: Scope,
    inputs: ReadonlyArray<LinkCreate>
  ) => Effect.Effect<ReadonlyArray<Result.Result<StoredLink, CreateFailure>>, DatabaseUnavailable>
  readonly update: (
    scope: Scope,
    id: string,
    input: LinkUpdate
  ) => Effect.Effect<StoredLink, LinkNotFound | SlugTaken | FolderUnknown | TagUnknown | ValidationFailed | DatabaseUnavailable>
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<void, LinkNotFound | DatabaseUnavailable>
}>()("ricochet/LinkRepository") {}

const select = (sql: Queryable) => sql`
  SELECT l.*, l.created_at::text AS created_key, d.host,
    COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.name, t.id)
              FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = l.id), '[]'::json) AS tags
  FROM links l JOIN domains d ON d.id = l.domain_id`

const selectById = (sql: Queryable, workspaceId: string, id: string) =>
  sql<LinkRow[]>`${select(sql)} WHERE l.workspace_id = ${workspaceId} AND l.id = ${id}`

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Newest first by (created_at, id), resuming strictly after the cursor's pair: links created
 * while a client pages through never shift or repeat the pages it has not read yet. The cursor's
 * time goes in as text: as a timestamptz parameter postgres.js would pass it through a JS Date and
 * drop the microseconds, skipping links created within the same millisecond as the page's last.
 */
const listRows = (sql: Queryable, workspaceId: string, f: ListFilters) => {
  const none = sql``
  return sql<LinkRow[]>`${select(sql)}
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
}

/** argon2id with OWASP's baseline: 19 MiB, 2 passes, 1 lane. It fails only on a bug of ours: a defect. */
const hashPassword = (password: string) =>
  Effect.orDie(Effect.tryPromise(() =>
    argon2id({
      password,
      salt: randomBytes(16),
      memorySize: 19_456,
      iterations: 2,
      parallelism: 1,
      hashLength: 32,
      outputType: "encoded"
    })
  ))

/** The stored hash a write sets: a new hash, null to remove it, undefined to keep it. */
const passwordHashOf = (password: string | null | undefined) =>
  password ? hashPassword(password) : Effect.succeed(password === undefined ? undefined : null)

const jsonOrNull = (tx: TransactionSql, value: unknown) => (value === null || value === undefined ? null : tx.json(value as never))

const slugTaken = (host: string, slug: string) => new SlugTaken({ message: `The slug ${JSON.stringify(slug)} is already used on ${host}` })

const resolveDomain = (tx: TransactionSql, workspaceId: string, host: string | undefined) =>
  Effect.gen(function*() {
    const [row] = host === undefined
      ? yield* run(() => tx<{ id: string; host: string }[]>`SELECT id, host FROM domains WHERE workspace_id = ${workspaceId} AND is_primary`)
      : yield* run(() => tx<{ id: string; host: string }[]>`SELECT id, host FROM domains WHERE workspace_id = ${workspaceId} AND host = ${host.toLowerCase()}`)
    if (row !== undefined) return row
    // Every workspace is created with its primary domain: its absence is a bug.
    if (host === undefined) return yield* Effect.die(new Error(`workspace ${workspaceId} has no primary domain`))
    return yield* new DomainUnknown(unknownReference(["domain"], `${JSON.stringify(host)} is not a domain of this workspace`))
  })

const checkFolder = (tx: TransactionSql, workspaceId: string, folderId: string | null | undefined) =>
  Effect.gen(function*() {
    if (folderId === undefined || folderId === null) return
    const [row] = yield* run(() => tx`SELECT 1 FROM folders WHERE workspace_id = ${workspaceId} AND id = ${folderId}`)
    if (row === undefined) {
      return yield* new FolderUnknown(unknownReference(
        ["folderId"],
        `No folder with id ${JSON.stringify(folderId)} in this workspace`,
        `Invalid request: unknown folder ${JSON.stringify(folderId)}`
      ))
    }
  })

/** The tag ids to set, each once; an id that is not the workspace's is a 422 at its index. */
const checkTags = (tx: TransactionSql, workspaceId: string, tagIds: ReadonlyArray<string> | undefined) =>
  Effect.gen(function*() {
    if (tagIds === undefined || tagIds.length === 0) return []
    const unique = [...new Set(tagIds)]
    const rows = yield* run(() => tx<{ id: string }[]>`SELECT id FROM tags WHERE workspace_id = ${workspaceId} AND id = ANY(${unique})`)
    const found = new Set(rows.map((r) => r.id))
    const missing = tagIds.findIndex((id) => !found.has(id))
    if (missing >= 0) {
      return yield* new TagUnknown(unknownReference(
        ["tagIds", missing],
        `No tag with id ${JSON.stringify(tagIds[missing])} in this workspace`,
        `Invalid request: unknown tag ${JSON.stringify(tagIds[missing])}`
      ))
    }
    return unique
  })

const setTags = (tx: TransactionSql, linkId: string, tagIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* run(() => tx`DELETE FROM link_tags WHERE link_id = ${linkId}`)
    if (tagIds.length > 0) yield* run(() => tx`INSERT INTO link_tags ${tx(tagIds.map((tagId) => ({ link_id: linkId, tag_id: tagId })))}`)
  })

/** A unique violation of this statement is `onTaken`; its savepoint keeps the transaction usable. */
const uniquely = <A, E>(tx: TransactionSql, statement: (sp: TransactionSql) => Promise<A>, onTaken: () => E) =>
  run(() => tx.savepoint(statement)).pipe(uniqueViolation(onTaken))

const currentLink = (tx: TransactionSql, workspaceId: string, id: string) =>
  Effect.map(run(() => selectById(tx, workspaceId, id)), ([row]) => toStoredLink(row!))

const countLinks = (tx: TransactionSql, scope: Scope) => () =>
  tx<{ n: number }[]>`SELECT count(*)::int AS n FROM links WHERE workspace_id = ${scope.workspaceId}`

/**
 * A link's writes inside a transaction: its references checked, then `quota` (the caller's, so
 * that the errors come in the order a single create gives them), the row, its tags and events.
 */
const insertLink = <EQ, RQ>(
  tx: TransactionSql,
  scope: Scope,
  input: LinkCreate,
  passwordHash: string | null,
  base: LinkBase,
  quota: Effect.Effect<void, EQ, RQ>
) =>
  Effect.gen(function*() {
    const domain = yield* resolveDomain(tx, scope.workspaceId, input.domain)
    yield* checkFolder(tx, scope.workspaceId, input.folderId)
    const tagIds = yield* checkTags(tx, scope.workspaceId, input.tagIds)
    yield* quota
    const abTest = yield* Effect.fromResult(resolveAbTest(input.url, null, input.abTest))
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
    const insert = (slug: string) => uniquely(tx, (sp) => sp`INSERT INTO links ${sp({ ...values, slug })}`, () => slugTaken(domain.host, slug))
    if (input.slug !== undefined) {
      yield* insert(input.slug)
    } else {
      yield* Effect.suspend(() => insert(randomSlug())).pipe(
        Effect.retry({ times: 10 }),
        Effect.catchTag("SlugTaken", () => Effect.fail(new SlugTaken({ message: "Could not find a free random slug; choose one" })))
      )
    }
    yield* setTags(tx, id, tagIds)
    const link = yield* currentLink(tx, scope.workspaceId, id)
    yield* writeEvents(tx, [{ type: "link.upserted", link: link.record }])
    yield* enqueueWebhookEvents(tx, [linkEvent("link.created", toLink(link, base), link.record.domainId, scope.workspaceId)])
    return link
  })

const create = (scope: Scope, input: LinkCreate, base: LinkBase) =>
  Effect.gen(function*() {
    const passwordHash = (yield* passwordHashOf(input.password)) ?? null
    return yield* transaction((tx) => insertLink(tx, scope, input, passwordHash, base, ensureQuota(tx, scope, "links", countLinks(tx, scope))))
  })

/** Failures that end a whole batch: the database, not the item. */
const isBatchFailure = (error: { readonly _tag: string }) => error._tag === "DatabaseUnavailable" || error._tag === "DatabaseError"

/**
 * Creates in one transaction (an import's batch): one commit and one quota count for all, each
 * item in a savepoint of its own, so a failed item leaves the others and reports its own error.
 */
const createMany = (scope: Scope, inputs: ReadonlyArray<LinkCreate>, base: LinkBase) =>
  Effect.gen(function*() {
    const hashes = yield* Effect.forEach(inputs, (input) => passwordHashOf(input.password))
    return yield* transaction((tx) =>
      Effect.gen(function*() {
        const quota = yield* quotaOf(tx, scope, "links", countLinks(tx, scope))
        const results: Array<Result.Result<StoredLink, CreateFailure>> = []
        for (const [i, input] of inputs.entries()) {
          const result = yield* Effect.result(savepoint(tx, (sp) => insertLink(sp, scope, input, hashes[i] ?? null, base, quota.check)))
          if (Result.isFailure(result)) {
            if (isBatchFailure(result.failure)) return yield* Effect.fail(result.failure as DatabaseUnavailable | DatabaseError)
            results.push(Result.fail(result.failure as CreateFailure))
          } else {
            quota.taken()
            results.push(Result.succeed(result.success))
          }
        }
        return results
      })
    )
  })

const update = (scope: Scope, id: string, input: LinkUpdate, base: LinkBase) =>
  Effect.gen(function*() {
    const passwordHash = yield* passwordHashOf(input.password)
    return yield* transaction((tx) =>
      Effect.gen(function*() {
        const [locked] = yield* run(() => tx`SELECT id FROM links WHERE workspace_id = ${scope.workspaceId} AND id = ${id} FOR UPDATE`)
        if (locked === undefined) return yield* LinkNotFound.make()
        const existing = (yield* currentLink(tx, scope.workspaceId, id)).record
        yield* checkFolder(tx, scope.workspaceId, input.folderId)
        const tagIds = input.tagIds === undefined ? undefined : yield* checkTags(tx, scope.workspaceId, input.tagIds)
        const url = input.url ?? existing.url
        const abTest = yield* Effect.fromResult(resolveAbTest(url, existing.abTest, input.abTest))

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
          const write = (sp: TransactionSql) => sp`UPDATE links SET ${sp(changes)}, updated_at = clock_timestamp() WHERE id = ${id}`
          // Only a new slug can collide; any other unique violation is unexpected.
          yield* input.slug === undefined ? run(() => tx.savepoint(write)) : uniquely(tx, write, () => slugTaken(existing.host, input.slug!))
        }
        if (tagIds !== undefined) {
          yield* setTags(tx, id, tagIds)
          if (Object.keys(changes).length === 0) yield* run(() => tx`UPDATE links SET updated_at = clock_timestamp() WHERE id = ${id}`)
        }
        const link = yield* currentLink(tx, scope.workspaceId, id)
        const events: Array<Parameters<typeof writeEvents>[1][number]> = []
        // The engines key their caches by host and slug: a renamed slug must leave the old key too.
        if (link.record.slug !== existing.slug) events.push({ type: "link.deleted", id, host: existing.host, slug: existing.slug })
        events.push({ type: "link.upserted", link: link.record })
        yield* writeEvents(tx, events)
        yield* enqueueWebhookEvents(tx, [linkEvent("link.updated", toLink(link, base), link.record.domainId, scope.workspaceId)])
        return link
      })
    )
  })

const remove = (workspaceId: string, id: string) =>
  transaction((tx) =>
    Effect.gen(function*() {
      const [row] = yield* run(() =>
        tx<{ host: string; slug: string; domain_id: string }[]>`
          DELETE FROM links l USING domains d
          WHERE l.workspace_id = ${workspaceId} AND l.id = ${id} AND d.id = l.domain_id
          RETURNING d.host, l.slug, l.domain_id`
      )
      if (row === undefined) return yield* LinkNotFound.make()
      yield* writeEvents(tx, [{ type: "link.deleted", id, host: row.host, slug: row.slug }])
      yield* enqueueWebhookEvents(tx, [linkDeletedEvent(workspaceId, { id, domainId: row.domain_id, host: row.host, slug: row.slug })])
    })
  )

const found = (row: LinkRow | undefined) => (row === undefined ? Effect.fail(LinkNotFound.make()) : Effect.succeed(toStoredLink(row)))

export const LinkRepositoryLayer = Layer.effect(LinkRepository)(Effect.gen(function*() {
  const database = yield* Database
  const outbox = yield* OutboxSignal
  const due = yield* WebhooksDue
  const linkBase: LinkBase = yield* LinkSettings
  // The database, and the wake-ups of the workers its commits give work to.
  const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(Database, database), Effect.provideService(OutboxSignal, outbox), Effect.provideService(WebhooksDue, due))
  return LinkRepository.of({
    list: (workspaceId, filters) =>
      query((sql) => listRows(sql, workspaceId, filters)).pipe(
        Effect.map((rows) => {
          const page = rows.slice(0, filters.limit)
          return { rows: page.map(toStoredLink), nextCursor: rows.length > filters.limit ? encodeCursor(page[page.length - 1]) : null }
        }),
        withDatabase
      ),
    find: (workspaceId, id) => query((sql) => selectById(sql, workspaceId, id)).pipe(Effect.flatMap(([row]) => found(row)), withDatabase),
    findBySlug: (workspaceId, host, slug) =>
      query((sql) =>
        sql<LinkRow[]>`${select(sql)} WHERE l.workspace_id = ${workspaceId} AND d.host = ${host.toLowerCase()} AND l.slug = ${slug}`
      ).pipe(Effect.flatMap(([row]) => found(row)), withDatabase),
    create: (scope, input) => withDatabase(create(scope, input, linkBase)),
    createMany: (scope, inputs) => withDatabase(createMany(scope, inputs, linkBase)),
    update: (scope, id, input) => withDatabase(update(scope, id, input, linkBase)),
    remove: (workspaceId, id) => withDatabase(remove(workspaceId, id))
  })
}))
