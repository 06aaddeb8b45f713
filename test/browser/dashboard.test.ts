import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { readdir, stat } from "node:fs/promises"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import {
  launchBrowser,
  openPage,
  type RunningBrowser,
  screenshot,
  signInWithKey,
  signInWithPassword
} from "../support/browser.ts"
import {
  apiClient,
  type ControlHandle,
  createTestDatabase,
  createWorkspace,
  eventually,
  nodeArgsFor,
  removeDir,
  ROOT,
  runCli,
  startControl,
  tempDir
} from "../support/processes.ts"

/**
 * The dashboard in Debian's chromium (issue 13, "Tests in a real browser"): one `npm start` on
 * PostgreSQL, its dashboard driven as a person would. Every page is checked for requests to other
 * hosts and console errors (a CSP violation shows there). Screenshots go to test/screenshots/.
 *
 * The analytics allowance is 20 requests a minute per workspace, and an analytics page asks 5: each
 * flow that reads analytics has a workspace of its own.
 */
const CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

let ctl: ControlHandle
let db: Awaited<ReturnType<typeof createTestDatabase>>
let dir: string
let chromium: RunningBrowser
let enginePort: string
const pages: Array<Awaited<ReturnType<typeof openPage>>> = []

const open = async (viewport?: { width: number; height: number }) => {
  const opened = await openPage(chromium.browser, ctl.baseUrl, viewport)
  pages.push(opened)
  return opened
}

/** `ricochet user create`, the password piped in (the CLI reads it from stdin when piped). */
const createUser = (workspaceId: string, email: string, password: string, role: "admin" | "member" = "admin") =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor("cli/ricochet.ts"), "user", "create", "--email", email, "--workspace", workspaceId, "--role", role], {
      cwd: ROOT,
      env: { ...process.env, ...ctl.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c) => (output += c))
    child.stderr.on("data", (c) => (output += c))
    child.stdin.end(`${password}\n`)
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`user create exited ${code}: ${output}`))))
  })

const visitAsPerson = async (url: string, headers: Record<string, string> = {}) => {
  const context = await chromium.browser.newContext({ userAgent: CHROME_UA, extraHTTPHeaders: headers })
  const page = await context.newPage()
  return { page, context, response: await page.goto(url) }
}

/** The build is missing, or older than a source of the dashboard or of the declaration it imports. */
const dashboardOutdated = async () => {
  const built = path.join(ROOT, "dashboard/dist/index.html")
  if (!existsSync(built)) return true
  const builtAt = (await stat(built)).mtimeMs
  const sources = (await Promise.all(["dashboard", "control", "shared"].map((d) => readdir(path.join(ROOT, d), { recursive: true }))))
    .flatMap((files, i) => files.map((f) => path.join(ROOT, ["dashboard", "control", "shared"][i], f)))
    .filter((f) => /\.(tsx?|css|html)$/.test(f) && !f.includes(`${path.sep}dist${path.sep}`))
  for (const file of sources) if ((await stat(file)).mtimeMs > builtAt) return true
  return false
}

beforeAll(async () => {
  if (await dashboardOutdated()) {
    // npm ci's prepare step builds it; after a change to its sources (or without install scripts) it is built here.
    const { build } = await import("vite")
    await build({ root: path.join(ROOT, "dashboard"), logLevel: "warn" })
  }
  db = await createTestDatabase()
  dir = await tempDir()
  ctl = await startControl({
    DATABASE_URL: db.url,
    NATS_URL: undefined,
    RICOCHET_DATA_DIR: dir,
    RICOCHET_GEO_HEADER: "cf-ipcountry",
    RICOCHET_ROLL_SECONDS: "1",
    RICOCHET_COMPACT_SECONDS: "1",
    RICOCHET_COMPACT_SETTLE_SECONDS: "0",
    RICOCHET_LINK_SCHEME: "http"
  })
  enginePort = ctl.env.RICOCHET_ENGINE_PORT!
  chromium = await launchBrowser()
})

afterEach(async () => {
  // Whatever a test did, the dashboard asked no other host and logged no error.
  for (const { foreign, consoleErrors, context } of pages.splice(0)) {
    await context.close()
    expect(foreign).toEqual([])
    expect(consoleErrors.filter((e) => !/status of (4\d\d)/.test(e))).toEqual([])
  }
})

afterAll(async () => {
  await chromium?.close()
  await ctl?.stop()
  await db?.drop()
  if (dir) await removeDir(dir)
})

describe("dashboard served by control", () => {
  it("serves index.html with a CSP and no-cache on / and client-side routes, hashed assets immutable", async () => {
    for (const route of ["/", "/links", "/links/lnk_x", "/analytics"]) {
      const res = await fetch(`${ctl.baseUrl}${route}`)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toMatch(/^text\/html/)
      expect(res.headers.get("cache-control")).toBe("no-cache")
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'")
      const html = await res.text()
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
      // The sign-in page needs one script and one stylesheet; the sections and the typed client come later.
      expect(html.match(/<script/g)).toHaveLength(1)
      expect(html).not.toContain("modulepreload")
      const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]
      const js = await fetch(`${ctl.baseUrl}${asset}`)
      expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    }
    expect((await fetch(`${ctl.baseUrl}/assets/nope.js`)).status).toBe(404)
    expect((await fetch(`${ctl.baseUrl}/`, { method: "POST" })).status).toBe(404)
    expect((await fetch(`${ctl.baseUrl}/v1/links`)).status).toBe(401)
  })

  it("loads in under a second on loopback and is usable from the keyboard", async () => {
    // Best of five loads (the later ones with the immutable assets cached, as a returning person has them).
    const times: Array<number> = []
    const { page: fresh } = await open()
    for (let i = 0; i < 5; i++) {
      const started = Date.now()
      await fresh.goto(`${ctl.baseUrl}/`)
      await fresh.getByRole("heading", { name: "Sign in to Ricochet" }).waitFor()
      times.push(Date.now() - started)
    }
    expect(Math.min(...times)).toBeLessThan(1_000)
    const { page } = await open()
    await page.goto(`${ctl.baseUrl}/`)
    await page.getByRole("heading", { name: "Sign in to Ricochet" }).waitFor()
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await page.getByLabel("Email", { exact: true }).getAttribute("id"))
    // The key form opens and submits from the keyboard too.
    await page.getByText("Use an API key instead").focus()
    await page.keyboard.press("Enter")
    await page.getByLabel("API key", { exact: true }).focus()
    await page.keyboard.type(ctl.firstKey!)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Links" }).waitFor()
    // Skip link first, then the sections.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
  })
})

describe("with an API key (works before sessions are merged)", () => {
  it("signs in, creates a link with geo rules and a password, sees it in the table", async () => {
    const { page } = await open()
    await signInWithKey(page, ctl.baseUrl, ctl.firstKey!)
    await page.getByRole("link", { name: "New link", exact: true }).click()
    await page.getByLabel("Destination URL").fill(`${ctl.baseUrl}/healthz`)
    await page.getByLabel("Slug", { exact: true }).fill("spring-sale")
    await page.getByRole("button", { name: "Add geo rule" }).click()
    await page.getByLabel("Country 1", { exact: true }).fill("DE")
    await page.getByLabel("URL for country 1").fill(`${ctl.baseUrl}/readyz`)
    await page.getByLabel("Ask visitors for a password").check()
    await page.locator('input[type="password"]').fill("open sesame")
    await page.getByLabel("utm_source").fill("newsletter")
    await expect.poll(() => page.getByTestId("utm-preview").textContent()).toContain("utm_source=newsletter")
    await screenshot(page, "link-editor")
    await page.getByRole("button", { name: "Create link" }).click()
    await page.getByRole("heading", { name: "Edit link" }).waitFor()
    expect(await page.getByLabel("Country 1", { exact: true }).inputValue()).toBe("DE")
    await expect.poll(() => page.getByLabel("Keep the current password").isChecked()).toBe(true)

    await page.getByRole("link", { name: "Links", exact: true }).click()
    const row = page.getByRole("row").filter({ hasText: "/spring-sale" })
    await row.waitFor()
    expect(await row.textContent()).toContain(`${ctl.baseUrl}/healthz`)
    await screenshot(page, "links")

    // The engine asks for the password, then sends a visitor from Germany to the geo rule's URL, with the UTM set.
    const link = (await apiClient(ctl.baseUrl, ctl.firstKey).get("/v1/links?search=spring-sale")).body.data[0]
    const visitor = await visitAsPerson(`http://${link.domain}:${enginePort}/spring-sale`, { "cf-ipcountry": "DE" })
    await visitor.page.locator('input[name="password"]').fill("open sesame")
    await visitor.page.getByRole("button", { name: "Continue" }).click()
    await expect.poll(() => visitor.page.url(), { timeout: 10_000 }).toBe(`${ctl.baseUrl}/readyz?utm_source=newsletter`)
    await visitor.context.close()
  })

  it("shows the field a 422 concerns next to that field", async () => {
    const { page } = await open()
    await signInWithKey(page, ctl.baseUrl, ctl.firstKey!)
    await page.getByRole("link", { name: "New link", exact: true }).click()
    await page.getByLabel("Destination URL").fill(`${ctl.baseUrl}/x`)
    await page.getByRole("button", { name: "Add geo rule" }).click()
    await page.getByLabel("Country 1", { exact: true }).fill("DE")
    await page.getByLabel("URL for country 1").fill("not a url")
    await page.getByRole("button", { name: "Create link" }).click()
    const url = page.getByLabel("URL for country 1")
    await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true")
    const describedBy = (await url.getAttribute("aria-describedby"))!.split(" ")
    expect(await page.locator(`[id="${describedBy.at(-1)}"]`).textContent()).toMatch(/URL/)
    expect(await page.getByRole("heading", { name: "New link" }).count()).toBe(1)
  })

  it("tags, folders and domains: create, rename, DNS records to copy", async () => {
    const { page } = await open()
    await signInWithKey(page, ctl.baseUrl, ctl.firstKey!)
    await page.getByRole("link", { name: "Tags", exact: true }).click()
    await page.getByLabel("New tag").fill("promo")
    await page.getByLabel("Colour", { exact: true }).selectOption("teal")
    await page.getByRole("button", { name: "Create tag" }).click()
    await page.getByLabel("Name of tag promo").fill("promo-2026")
    await page.getByRole("button", { name: "Save" }).click()
    await page.locator(".tag", { hasText: "promo-2026" }).waitFor()

    await page.getByRole("link", { name: "Folders", exact: true }).click()
    await page.getByLabel("New folder").fill("Campaigns")
    await page.getByRole("button", { name: "Create folder" }).click()
    await page.getByLabel("Name of folder Campaigns").waitFor()

    await page.getByRole("link", { name: "Domains", exact: true }).click()
    await page.getByLabel("Add a custom domain").fill("go.example.test")
    await page.getByRole("button", { name: "Add domain" }).click()
    const card = page.getByRole("article", { name: "go.example.test" })
    await card.getByRole("table", { name: "DNS records to publish" }).waitFor()
    expect(await card.getByTestId("domain-status").textContent()).toBe("pending")
    expect(await card.getByRole("button", { name: /^Copy value/ }).count()).toBeGreaterThan(0)
    await card.getByLabel("An unknown slug goes to").fill(`${ctl.baseUrl}/not-found`)
    await card.getByRole("button", { name: "Save fallbacks" }).click()
    await card.getByText("Saved.").waitFor()
    await screenshot(page, "domains")
  })

  it("a visit on the engine appears in the analytics chart", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Analytics workspace")
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    const created = await api.post("/v1/links", { url: `${ctl.baseUrl}/healthz`, slug: "visit-me" })
    expect(created.status).toBe(201)
    const visitor = await visitAsPerson(`http://${ws.domain}:${enginePort}/visit-me`)
    expect(visitor.page.url()).toBe(`${ctl.baseUrl}/healthz`)
    await visitor.context.close()
    // The click reaches the analytics files within seconds; asked sparingly (20 a minute).
    await eventually(async () => (await api.get("/v1/analytics?groupBy=count&interval=24h")).body.data?.clicks === 1, 20_000, 1_000)

    const { page } = await open()
    await signInWithKey(page, ctl.baseUrl, ws.apiKey)
    await page.getByRole("link", { name: "Analytics", exact: true }).click()
    await expect.poll(() => page.getByTestId("total-clicks").textContent(), { timeout: 10_000 }).toMatch(/^1 click from/)
    expect(await page.getByRole("img", { name: /1 by people, 0 by AI agents/ }).count()).toBe(1)
    await page.locator(".uplot canvas").first().waitFor()
    // Clicking a ranked row filters by it.
    await page.getByRole("button", { name: /^Filter by .*visit-me/ }).click()
    await page.getByRole("list", { name: "Active filters" }).getByText(/Link id/).waitFor()
    expect(new URL(page.url()).searchParams.get("linkId")).toBe(created.body.id)
    await screenshot(page, "analytics")
  })

  it("works at a phone's width", async () => {
    const { page } = await open({ width: 390, height: 844 })
    await signInWithKey(page, ctl.baseUrl, ctl.firstKey!)
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await page.getByRole("link", { name: "New link", exact: true }).click()
    await page.getByRole("heading", { name: "New link" }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    await screenshot(page, "link-editor-phone")
  })
})

/*
 * The flows below stand on endpoints other branches are adding (sessions and keys: i12-people-keys;
 * import: i12-bulk). They are written to /work/notes/contracts.md and fail until those merge.
 */
describe("with sessions, keys and import (need the i12 branches merged)", () => {
  const signInAsNewAdmin = async (page: Page, workspaceId: string, email: string) => {
    await createUser(workspaceId, email, "correct horse battery staple")
    await signInWithPassword(page, ctl.baseUrl, email, "correct horse battery staple")
  }

  it("signs in with email and password, shows role and plan, signs out", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Session workspace")
    const { page, context } = await open()
    await signInAsNewAdmin(page, ws.workspace.id, "ada@example.test")
    const cookie = (await context.cookies()).find((c) => c.name === "ricochet_session")
    expect(cookie?.httpOnly).toBe(true)
    expect(await page.getByTestId("plan").textContent()).toBe("pro")
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in to Ricochet" }).waitFor()
    await page.reload()
    await page.getByRole("heading", { name: "Sign in to Ricochet" }).waitFor()
  })

  it("asks for a new password after a one-time password, then goes on to the links", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "One-time workspace")
    const made = await runCli(["user", "create", "--email", "once@example.test", "--workspace", ws.workspace.id, "--role", "admin", "--json"], ctl.env)
    expect(made.code, made.output).toBe(0)
    const oneTime = JSON.parse(made.output.trim().split("\n").pop()!).password as string
    const { page } = await open()
    await signInWithPassword(page, ctl.baseUrl, "once@example.test", oneTime, "Choose a new password")
    expect(await page.getByLabel("Current password").inputValue()).toBe(oneTime)
    expect(await page.getByRole("navigation", { name: "Sections" }).count()).toBe(0)
    // Typed differently twice: said once, beside the field.
    await page.getByLabel("New password", { exact: true }).fill("my very own password")
    await page.getByLabel("New password again").fill("my very own passwort")
    await page.getByRole("button", { name: "Save and continue" }).click()
    const again = page.getByLabel("New password again")
    await expect.poll(() => again.getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByText("Type the same new password twice").count()).toBe(1)
    await screenshot(page, "choose-password")
    await again.fill("my very own password")
    await page.getByRole("button", { name: "Save and continue" }).click()
    await page.getByRole("heading", { name: "Links" }).waitFor({ timeout: 60_000 })
    // The session is unrestricted now; a reload keeps it, and the one-time password no longer signs in.
    await page.reload()
    await page.getByRole("heading", { name: "Links" }).waitFor()
    const old = await fetch(`${ctl.baseUrl}/v1/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "once@example.test", password: oneTime }) })
    expect(old.status).toBe(401)
  })

  it("creates a key shown once, revokes it, and the revoked key is refused", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Keys workspace")
    const { page } = await open()
    await signInAsNewAdmin(page, ws.workspace.id, "keys-admin@example.test")
    await page.getByRole("link", { name: "API keys", exact: true }).click()
    await page.getByLabel("Name", { exact: true }).fill("CI deploys")
    await page.getByRole("button", { name: "Create key" }).click()
    const key = (await page.getByTestId("new-key").textContent())!
    expect(key).toMatch(/^rico_/)
    expect((await apiClient(ctl.baseUrl, key).get("/v1/links")).status).toBe(200)
    await screenshot(page, "keys")
    page.once("dialog", (dialog) => dialog.accept())
    await page.getByRole("button", { name: "Revoke key CI deploys" }).click()
    await expect.poll(() => page.getByRole("button", { name: "Revoke key CI deploys" }).count()).toBe(0)
    expect((await apiClient(ctl.baseUrl, key).get("/v1/links")).status).toBe(401)
  })

  it("imports a CSV of 1,000 rows with progress and the report of failed rows", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Import workspace")
    const rows = Array.from({ length: 1000 }, (_, i) => (i % 200 === 199 ? `not a url,bad-${i}` : `https://example.com/item/${i},item-${i}`))
    const { page } = await open()
    await signInAsNewAdmin(page, ws.workspace.id, "importer@example.test")
    await page.getByRole("button", { name: "Import CSV" }).click()
    await page.getByLabel("CSV file").setInputFiles({ name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(`url,slug\n${rows.join("\n")}\n`) })
    await page.getByRole("button", { name: "Import", exact: true }).click()
    await page.getByRole("progressbar", { name: "Import progress" }).waitFor()
    const report = page.getByRole("table", { name: "Rows that failed" })
    await report.waitFor({ timeout: 60_000 })
    await expect.poll(() => report.getByRole("row").count(), { timeout: 60_000 }).toBe(1 + 5)
    await expect.poll(() => page.getByRole("status").filter({ hasText: "created" }).textContent()).toContain("995 created")
  })

  it("creates a webhook (secret shown once), lists its deliveries, re-enables it when disabled", async () => {
    const ws = await createWorkspace(ctl.env, "pro", "Webhooks workspace")
    const { page } = await open()
    await signInAsNewAdmin(page, ws.workspace.id, "hooks-admin@example.test")
    await page.getByRole("link", { name: "Webhooks", exact: true }).click()
    await page.getByLabel("Endpoint URL").fill("https://hooks.example.com/ricochet")
    await page.getByRole("button", { name: "Create webhook" }).click()
    const secretNote = page.getByRole("status").filter({ hasText: "signing secret" })
    expect(await secretNote.locator("code").textContent()).toMatch(/^whsec_/)
    await page.getByRole("button", { name: "Done" }).click()

    // A change the webhook subscribes to: one delivery (its receiver is unreachable from here, so it waits to be retried).
    const api = apiClient(ctl.baseUrl, ws.apiKey)
    expect((await api.post("/v1/links", { url: "https://example.com/hooked", slug: "hooked" })).status).toBe(201)
    const webhook = page.getByRole("article", { name: "Webhook https://hooks.example.com/ricochet" })
    await webhook.getByRole("button", { name: "Deliveries" }).click()
    // Reopened (which reloads the list) only once a load has finished without the delivery: toggling
    // faster than the list loads would never show it, and would spend the workspace's rate limit.
    await expect.poll(async () => {
      const found = await webhook.getByRole("table").getByRole("cell", { name: "link.created" }).count()
      if (found === 0 && (await webhook.getByText("Loading deliveries…").count()) === 0) {
        await webhook.getByRole("button", { name: "Deliveries" }).click()
        await webhook.getByRole("button", { name: "Deliveries" }).click()
      }
      return found
    }, { timeout: 30_000, interval: 1_000 }).toBe(1)
    await screenshot(page, "webhooks")

    // Disabled (as after 3 days of failures): the page offers to re-enable it.
    const [hook] = (await api.get("/v1/webhooks")).body.data
    expect((await api.patch(`/v1/webhooks/${hook.id}`, { enabled: false })).status).toBe(200)
    await page.reload()
    await webhook.getByText("disabled", { exact: true }).waitFor()
    await webhook.getByRole("button", { name: "Re-enable" }).click()
    await webhook.getByText("enabled", { exact: true }).waitFor()
    expect((await api.get(`/v1/webhooks/${hook.id}`)).body.enabled).toBe(true)
  })

  it("a Basic workspace sees A/B testing disabled, with the reason", async () => {
    const ws = await createWorkspace(ctl.env, "basic", "Basic workspace")
    const { page } = await open()
    await signInAsNewAdmin(page, ws.workspace.id, "basic@example.test")
    expect(await page.getByTestId("plan").textContent()).toBe("basic")
    await page.getByRole("link", { name: "New link", exact: true }).click()
    const ab = page.getByLabel("Split visitors between variants")
    expect(await ab.isDisabled()).toBe(true)
    expect(await page.locator("#ab-gate").textContent()).toMatch(/needs the pro plan or higher; this workspace is on basic/)
    // Basic features stay available.
    expect(await page.getByRole("button", { name: "Add geo rule" }).isDisabled()).toBe(false)
  })
})
