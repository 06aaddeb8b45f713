import { Effect, Layer, ManagedRuntime, Result } from "effect"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresLayer } from "../../control/db/layers.ts"
import { LinkRepository, LinkRepositoryLayer } from "../../control/links/LinkRepository.ts"
import type { LinkCreate } from "../../control/links/schema.ts"
import { LinkSettingsLayer } from "../../shared/settings/LinkSettings.ts"
import { environmentLayer } from "../../shared/settings/environment.ts"
import { createTestDatabase } from "../support/processes.ts"
import { OutboxSignalLayer } from "../../control/outbox/OutboxSignal.ts"
import { WebhooksDueLayer } from "../../control/webhooks/WebhooksDue.ts"

/**
 * LinkRepository.createMany (an import's batch): many creates in one transaction, each item in a
 * savepoint of its own. Items fail on their own with the error a single create gives, the plan's
 * limit is counted across the batch, and a failed item writes nothing (no row, no event).
 */
describe("LinkRepository.createMany on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let direct: postgres.Sql
  let runtime: ManagedRuntime.ManagedRuntime<LinkRepository, unknown>
  const workspaceId = "ws_createmany"
  const domainId = "dom_createmany"
  const FREE_LIMIT = 1_000

  beforeAll(async () => {
    db = await createTestDatabase()
    const layer = LinkRepositoryLayer.pipe(
      Layer.provide(postgresLayer(db.url, 10)),
      Layer.provide(LinkSettingsLayer.pipe(Layer.provide(environmentLayer({ DATABASE_URL: db.url, RICOCHET_SHORT_DOMAIN: "short.test" })))),
      Layer.provide([OutboxSignalLayer, WebhooksDueLayer])
    )
    runtime = ManagedRuntime.make(layer)
    await runtime.runPromise(Effect.service(LinkRepository)) // migrates
    direct = postgres(db.url, { max: 1, onnotice: () => {} })
    await direct`INSERT INTO workspaces (id, name, slug, plan) VALUES (${workspaceId}, 'Create many', 'create-many', 'free')`
    await direct`INSERT INTO domains (id, workspace_id, host, kind, status, is_primary, verified_at, verification_token)
                 VALUES (${domainId}, ${workspaceId}, 'create-many.short.test', 'subdomain', 'verified', true, now(), 'token')`
    // Three short of the free plan's limit.
    await direct`INSERT INTO links (id, workspace_id, domain_id, slug, url)
                 SELECT 'lnk_seed' || i, ${workspaceId}, ${domainId}, 'seed-' || i, 'https://example.com/' || i
                 FROM generate_series(1, ${FREE_LIMIT - 3}) AS i`
  }, 60_000)

  afterAll(async () => {
    await direct?.end()
    await runtime?.dispose()
    await db?.drop()
  })

  it("applies each item on its own: errors in place, the limit counted across the batch, nothing written for a failed item", async () => {
    const inputs: Array<LinkCreate> = [
      { url: "https://example.com/a", slug: "a" },
      { url: "https://example.com/a-again", slug: "a" },
      { url: "https://example.com/folder", folderId: "fld_missing" },
      { url: "https://example.com/b", slug: "b", password: "secret-b" },
      { url: "https://example.com/c" },
      { url: "https://example.com/d", slug: "d" }
    ]
    const outbox = async () => (await direct<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox`)[0]!.n
    const eventsBefore = await outbox()
    const results = await runtime.runPromise(
      Effect.flatMap(Effect.service(LinkRepository), (links) => links.createMany({ workspaceId, plan: "free" }, inputs))
    )
    expect(results.map((r) => (Result.isSuccess(r) ? r.success.record.slug : r.failure._tag))).toEqual([
      "a",
      "SlugTaken",
      "FolderUnknown",
      "b",
      expect.stringMatching(/^[A-Za-z0-9]+$/),
      "LimitReached"
    ])
    const [{ n }] = await direct<{ n: number }[]>`SELECT count(*)::int AS n FROM links WHERE workspace_id = ${workspaceId}`
    expect(n).toBe(FREE_LIMIT)
    const created = await direct<{ slug: string; url: string; has_password: boolean }[]>`
      SELECT slug, url, password_hash IS NOT NULL AS has_password FROM links WHERE id NOT LIKE 'lnk_seed%' ORDER BY created_at`
    expect(created.map((l) => [l.url, l.has_password])).toEqual([
      ["https://example.com/a", false],
      ["https://example.com/b", true],
      ["https://example.com/c", false]
    ])
    // One outbox event per created link; none for a failed item.
    const linkEvents = await direct<{ url: string }[]>`
      SELECT payload->'link'->>'url' AS url FROM outbox WHERE payload->>'type' = 'link.upserted' ORDER BY id`
    expect(linkEvents.map((e) => e.url)).toEqual(["https://example.com/a", "https://example.com/b", "https://example.com/c"])
    expect(await outbox()).toBe(eventsBefore + 3)
  })
})
