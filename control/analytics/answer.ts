import { shortLinkUrl } from "../../shared/links/shortLink.ts"
import { Effect } from "effect"
import { LinkSettings } from "../../shared/settings/LinkSettings.ts"
import type { Principal } from "../kernel/Principal.ts"
import { attempt, query } from "../db/sql.ts"
import { ClickStore } from "./ClickStore.ts"
import { requestedWindow, resolveFilter } from "./resolve.ts"
import type { AnalyticsQuery, GroupBy } from "./schema.ts"
import { analyticsSql, breakdownKeys, bucketStarts, type ClickFilter, recordedLinksSql } from "./sql.ts"

const counts = (row: Record<string, unknown> | undefined) => ({
  clicks: Number(row?.clicks ?? 0),
  people: Number(row?.people ?? 0),
  agents: Number(row?.agents ?? 0)
})

/** A question made ready to count: its window, its filter resolved, the click files it reads. */
export interface PreparedQuestion {
  readonly principal: Principal
  readonly range: { readonly start: string; readonly end: string }
  readonly window: { readonly fromMs: number; readonly toMs: number }
  readonly bucket: "hour" | "day"
  readonly filter: ClickFilter
  readonly files: ReadonlyArray<string>
}

/**
 * The window cut to the plan's history, the link-selecting parameters resolved in PostgreSQL
 * (`linkIds` narrows further), the click files of the window; an unknown reference is a 422.
 */
export const prepareQuestion = (
  principal: Principal,
  q: Omit<AnalyticsQuery, "groupBy" | "limit">,
  window: { readonly fromMs: number; readonly toMs: number; readonly bucket: "hour" | "day" },
  linkIds?: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    const store = yield* ClickStore
    const { bucket, ...span } = window
    const resolved = yield* query((sql) => resolveFilter(sql, principal.workspaceId, q, span, linkIds))
    if ("_tag" in resolved) return yield* resolved
    const files = yield* attempt(() => store.files(span.fromMs, span.toMs))
    const range = { start: new Date(span.fromMs).toISOString(), end: new Date(span.toMs).toISOString() }
    return { principal, range, window: span, bucket, filter: resolved, files } satisfies PreparedQuestion
  })

/** The rows of one grouping of a prepared question, as GET /v1/analytics answers them in `data`. */
export const countGroup = (prepared: PreparedQuestion, groupBy: GroupBy, limit: number) =>
  Effect.gen(function*() {
    const store = yield* ClickStore
    const linkBase = yield* LinkSettings
    const { principal, window, bucket, filter, files } = prepared
    const rows = files.length === 0
      ? []
      : yield* attempt(async () => {
        const { text, params } = analyticsSql(files, filter, groupBy, limit, bucket, await store.rollups(files))
        return store.query(text, params)
      })
    if (groupBy === "count") return counts(rows[0])
    if (groupBy === "timeseries") {
      const byStart = new Map(rows.map((row) => [String(row.start), row]))
      return bucketStarts(window.fromMs, window.toMs, bucket).map((start) => ({ start, ...counts(byStart.get(start)) }))
    }
    const keys = breakdownKeys(groupBy)
    const data: Array<Record<string, unknown>> = rows.map((row) => ({ ...Object.fromEntries(keys.map((k) => [k, row[k] ?? null])), ...counts(row) }))
    if (groupBy !== "top_links" || data.length === 0) return data
    // Links as they are now; a deleted link keeps the host, slug and url its clicks recorded.
    const ids = data.map((row) => String(row.linkId))
    const current = yield* query((sql) =>
      sql<{ id: string; host: string; slug: string; url: string }[]>`
        SELECT l.id, d.host, l.slug, l.url FROM links l JOIN domains d ON d.id = l.domain_id
        WHERE l.workspace_id = ${principal.workspaceId} AND l.id = ANY(${ids})`
    )
    // Only deleted links are looked up in the click files (a scan of the window's raw files).
    const known = new Set(current.map((row) => row.id))
    const deleted = ids.filter((id) => !known.has(id))
    const recorded = deleted.length === 0 ? [] : yield* attempt(() => {
      const { text, params } = recordedLinksSql(files, principal.workspaceId, deleted)
      return store.query(text, params)
    })
    const links = new Map<string, { host: string; slug: string; url: string }>()
    for (const row of recorded) links.set(String(row.link_id), { host: String(row.host), slug: String(row.slug), url: String(row.url) })
    for (const row of current) links.set(row.id, { host: row.host, slug: row.slug, url: row.url })
    return data.map((row) => {
      const link = links.get(String(row.linkId))!
      return {
        linkId: String(row.linkId),
        domain: link.host,
        slug: link.slug,
        shortLink: shortLinkUrl(linkBase, link.host, link.slug),
        url: link.url,
        clicks: row.clicks as number,
        people: row.people as number,
        agents: row.agents as number
      }
    })
  })

/**
 * Answers one analytics question for a caller: the window cut to the plan's history, the
 * link-selecting parameters resolved in PostgreSQL, then DuckDB over the click files.
 */
export const answerAnalytics = (principal: Principal, q: AnalyticsQuery) =>
  Effect.gen(function*() {
    const prepared = yield* prepareQuestion(principal, q, requestedWindow(q, principal.plan, Date.now()))
    return { ...prepared.range, data: yield* countGroup(prepared, q.groupBy ?? "count", q.limit ?? 100) }
  })
