import postgres from "postgres"
import {
  ADMIN_DATABASE_URL,
  apiClient,
  eventually,
  freePort,
  removeDir,
  runTs,
  startControl,
  startEngineProcess,
  startNats,
  tempDir,
  visit
} from "../../test/support/processes.ts"

export { ADMIN_DATABASE_URL, apiClient, eventually, freePort, removeDir, ROOT, startControl, startEngineProcess, startNats, tempDir, visit } from "../../test/support/processes.ts"

/** A desktop Chrome: classified as a person, so click capture runs for every request. */
/**
 * The environment of an embedded npm start for redirect load: its own data directory, no
 * PostgreSQL or NATS, the country from cf-ipcountry, plain http links, `workers` HTTP workers.
 */
export const embeddedRedirectEnv = (dir: string, workers: number) => ({
  RICOCHET_DATA_DIR: dir,
  DATABASE_URL: undefined,
  NATS_URL: undefined,
  RICOCHET_GEO_HEADER: "cf-ipcountry",
  RICOCHET_LINK_SCHEME: "http",
  RICOCHET_ENGINE_WORKERS: String(workers)
})

export const BROWSER_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

/** The subdomain control's first start gives the first workspace (RICOCHET_SHORT_DOMAIN=localhost). */
export const FIRST_HOST = "my-workspace.localhost"

/**
 * A fresh PostgreSQL database (as test/support's createTestDatabase, named ricochet_bench_… so a
 * leftover is easy to tell from a test's), dropped by the scope.
 */
export const createBenchDatabase = async (scope: Scope): Promise<{ url: string }> => {
  const name = `ricochet_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  scope.defer(`drop database ${name}`, async () => {
    const again = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} })
    try {
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    } finally {
      await again.end()
    }
  })
  const url = new URL(ADMIN_DATABASE_URL)
  url.pathname = `/${name}`
  return { url: url.toString() }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------------------------
// Cleanup that runs on success, on failure and on Ctrl-C.

type Cleanup = () => unknown
const openScopes = new Set<Scope>()

/**
 * What a scenario started, stopped in reverse order by close(). Scenarios open one and close it
 * in `finally`; the harness closes any still open when it is interrupted.
 */
export class Scope {
  private readonly cleanups: Array<{ what: string; run: Cleanup }> = []
  private closing: Promise<void> | undefined
  constructor() {
    openScopes.add(this)
  }
  defer(what: string, run: Cleanup): void {
    if (this.closing !== undefined) {
      // Started after an interruption began closing this scope: stop it at once.
      void Promise.resolve().then(run).catch(() => {})
      return
    }
    this.cleanups.push({ what, run })
  }
  /** Runs the cleanups once, newest first; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.cleanups.length > 0) {
        const { what, run } = this.cleanups.pop()!
        try {
          await run()
        } catch (error) {
          console.error(`bench: cleanup "${what}" failed: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
      openScopes.delete(this)
    })()
    return this.closing
  }
}

export const closeAllScopes = async () => {
  for (const scope of [...openScopes].reverse()) await scope.close()
}

// ---------------------------------------------------------------------------------------------
// Processes

/** The bare uWebSockets.js 302 server of bench/lib/bareUws.ts, in a child process. */
export const startBareUws = async (scope: Scope) => {
  const port = await freePort()
  const proc = runTs("bench/lib/bareUws.ts", [String(port)], {})
  scope.defer("bare uWS", () => proc.stop())
  const baseUrl = `http://127.0.0.1:${port}`
  await eventually(async () => {
    if (proc.child.exitCode !== null) throw new Error(`bare uWS exited:\n${proc.output()}`)
    return /listening/.test(proc.output())
  }, 30_000, 50)
  return { baseUrl, port, pid: proc.child.pid }
}

export interface EngineStatus {
  readonly cache: { readonly links: number; readonly domains: number; readonly bytes: number }
  readonly queries: number
  /** Lookups a domain's slug filter answered "no such slug" without the database (newer engines). */
  readonly filtered?: number
  readonly clicks: { readonly people: number; readonly agent: number; readonly bot?: number }
  readonly sink?: { readonly acknowledged: number; readonly rolled: number }
}

export const engineStatus = async (engineUrl: string): Promise<EngineStatus> => {
  const res = await fetch(`${engineUrl}/.well-known/ricochet/status`)
  if (!res.ok) throw new Error(`engine status: HTTP ${res.status}`)
  return (await res.json()) as EngineStatus
}

/** Engine status once the click batches have settled (two reads 200 ms apart agree). */
export const settledStatus = async (engineUrl: string, timeoutMs = 10_000): Promise<EngineStatus> => {
  const deadline = Date.now() + timeoutMs
  let last = await engineStatus(engineUrl)
  while (Date.now() < deadline) {
    await sleep(200)
    const now = await engineStatus(engineUrl)
    if (JSON.stringify(now.clicks) === JSON.stringify(last.clicks) && JSON.stringify(now.sink) === JSON.stringify(last.sink)) return now
    last = now
  }
  return last
}

/** Sends one request per path so the engine has each link cached; throws on an unexpected status. */
export const warm = async (engineUrl: string, host: string, paths: ReadonlyArray<string>, expect = 302) => {
  for (const path of paths) {
    const answer = await visit(engineUrl, host, path)
    if (answer.status !== expect) throw new Error(`warming ${host}${path}: expected ${expect}, got ${answer.status} ${answer.body.slice(0, 200)}`)
  }
}

/** The key of the first workspace, which control prints on its first start. */
export const firstKey = (control: { firstKey: string | undefined; output: () => string }) => {
  if (control.firstKey === undefined) throw new Error(`control printed no API key on first start:\n${control.output()}`)
  return control.firstKey
}

/** Links made through the API, with geo rules, device rules and a utm set. */
export const createRuleLinks = async (api: ReturnType<typeof apiClient>, count: number, prefix: string) => {
  const slugs: Array<string> = []
  for (let i = 0; i < count; i++) {
    const slug = `${prefix}${i.toString(36).padStart(7 - prefix.length, "0")}`
    const res = await api.post("/v1/links", {
      url: `https://www.example-shop.com/products/spring-sale/item-${i}?ref=newsletter`,
      slug,
      geoRules: [
        { country: "DE", url: `https://de.example-shop.com/produkte/fruehling/artikel-${i}` },
        { country: "FR", url: `https://fr.example-shop.com/produits/printemps/article-${i}` },
        { country: "US", url: `https://us.example-shop.com/products/spring/item-${i}` }
      ],
      deviceRules: [
        { device: "ios", url: `https://apps.apple.com/app/example-shop/id${100000 + i}` },
        { device: "android", url: `https://play.google.com/store/apps/details?id=com.example.shop&item=${i}` }
      ],
      utm: { source: "newsletter", medium: "email", campaign: "spring-sale" }
    })
    if (res.status !== 201) throw new Error(`creating link ${slug}: HTTP ${res.status} ${JSON.stringify(res.body)}`)
    slugs.push(slug)
  }
  return slugs
}

// ---------------------------------------------------------------------------------------------
// A large link table on PostgreSQL, control alone and one engine (redirect-miss, redirect-scan)

/** Links in the table of redirect-miss and redirect-scan (BENCH_MISS_LINKS): a 10 s miss phase must not wrap. */
export const linkTableSize = () => Math.floor(Number(process.env.BENCH_MISS_LINKS ?? 600_000))

/** The slug of row i of the table (SQL: 'k' || lpad(to_hex(i), 6, '0')); 7 characters. */
export const tableSlug = (i: number) => `k${i.toString(16).padStart(6, "0")}`

export const startLinkTable = async (scope: Scope, links: number) => {
  const db = await createBenchDatabase(scope)
  const dir = await tempDir("ricochet-bench-")
  scope.defer("remove data dir", () => removeDir(dir))
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: undefined,
    RICOCHET_DATA_DIR: dir,
    RICOCHET_GEO_HEADER: "cf-ipcountry",
    RICOCHET_LINK_SCHEME: "http",
    RICOCHET_CACHE_TTL_SECONDS: "86400"
  }
  const control = await startControl(env, true)
  scope.defer("stop control", () => control.stop())

  const sql = postgres(db.url, { max: 1, onnotice: () => {} })
  const started = Date.now()
  let host: string
  try {
    const [domain] = await sql<{ id: string; workspace_id: string; host: string }[]>`
      SELECT id, workspace_id, host FROM domains WHERE kind = 'subdomain' ORDER BY created_at LIMIT 1`
    if (domain === undefined) throw new Error("no subdomain after control's first start")
    host = domain.host
    // Realistic rows: a ~60-character url, a utm set on a third of them, geo rules on a tenth.
    await sql`
      INSERT INTO links (id, workspace_id, domain_id, slug, url, utm, geo_rules)
      SELECT 'lnk_bench' || lpad(i::text, 16, '0'), ${domain.workspace_id}, ${domain.id},
             'k' || lpad(to_hex(i), 6, '0'),
             'https://www.example-shop.com/products/catalogue/item-' || i || '?ref=bench',
             CASE WHEN i % 3 = 0 THEN '{"source":"newsletter","medium":"email","campaign":"bench"}'::jsonb END,
             CASE WHEN i % 10 = 0
               THEN jsonb_build_array(jsonb_build_object('country', 'DE', 'url', 'https://de.example-shop.com/artikel-' || i))
               ELSE '[]'::jsonb END
      FROM generate_series(0, ${links - 1}::int) AS i`
    await sql`ANALYZE links`
    await sql`ANALYZE domains`
  } finally {
    await sql.end({ timeout: 5 })
  }
  const insertMs = Date.now() - started

  const engine = await startEngineProcess(env)
  scope.defer("stop engine", () => engine.stop())
  return { db, control, engine, host, links, insertMs }
}
