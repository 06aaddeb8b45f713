import { shortLinkUrl } from "../../shared/links/shortLink.ts"
import { Effect } from "effect"
import { Configuration } from "../../shared/config.ts"
import type { Principal } from "../api/Principal.ts"
import { attempt, query } from "../db/sql.ts"
import { ClickStore } from "./ClickStore.ts"
import { requestedWindow, resolveFilter } from "./resolve.ts"
import type { AnalyticsQuery } from "./schema.ts"
import { analyticsSql, breakdownKeys, bucketStarts, recordedLinksSql } from "./sql.ts"

const counts = (row: Record<string, unknown> | undefined) => ({
  clicks: Number(row?.clicks ?? 0),
  people: Number(row?.people ?? 0),
  agents: Number(row?.agents ?? 0)
})

/**
 * Answers one analytics question for a caller: the window cut to the plan's history, the
 * link-selecting parameters resolved in PostgreSQL, then DuckDB over the click files.
 */
export const answerAnalytics = (principal: Principal, q: AnalyticsQuery) =>
  Effect.gen(function*() {
    const store = yield* ClickStore
    const linkBase = yield* Configuration
    const groupBy = q.groupBy ?? "count"
    const { bucket, ...window } = requestedWindow(q, principal.plan, Date.now())
    const filter = yield* query((sql) => resolveFilter(sql, principal.workspaceId, q, window))
    if ("_tag" in filter) return yield* filter
    const files = yield* attempt(() => store.files(window.fromMs, window.toMs))
    const rows = files.length === 0
      ? []
      : yield* attempt(async () => {
        const { text, params } = analyticsSql(files, filter, groupBy, q.limit ?? 100, bucket, await store.rollups(files))
        return store.query(text, params)
      })
    const range = { start: new Date(window.fromMs).toISOString(), end: new Date(window.toMs).toISOString() }
    if (groupBy === "count") return { ...range, data: counts(rows[0]) }
    if (groupBy === "timeseries") {
      const byStart = new Map(rows.map((row) => [String(row.start), row]))
      return { ...range, data: bucketStarts(window.fromMs, window.toMs, bucket).map((start) => ({ start, ...counts(byStart.get(start)) })) }
    }
    const keys = breakdownKeys(groupBy)
    const data: Array<Record<string, unknown>> = rows.map((row) => ({ ...Object.fromEntries(keys.map((k) => [k, row[k] ?? null])), ...counts(row) }))
    if (groupBy !== "top_links" || data.length === 0) return { ...range, data }
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
    return {
      ...range,
      data: data.map((row) => {
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
    }
  })
