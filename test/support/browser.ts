import { mkdir } from "node:fs/promises"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { ROOT } from "./processes.ts"
import { sleep } from "./time.ts"

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.RICOCHET_CHROMIUM ?? "/usr/bin/chromium"

export const SCREENSHOTS = path.join(ROOT, "test/screenshots")

export interface RunningBrowser {
  readonly browser: Browser
  readonly close: () => Promise<void>
}

const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
  "--no-first-run", "--disable-sync"
]

/**
 * Headless chromium with nothing in the background that calls another host. Playwright's launch
 * gives it a fresh temporary user-data-dir of its own, removed when it closes.
 */
export const launchBrowser = async (): Promise<RunningBrowser> => {
  // Short links live on *.localhost here; chromium may try ::1 first, where the engine does not listen.
  const args = [...ARGS, "--host-resolver-rules=MAP *.localhost 127.0.0.1"]
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args })
  return { browser, close: () => browser.close() }
}

/**
 * A page that fails the test on any request to another host and collects what the console says
 * (a CSP violation shows there).
 */
export const openPage = async (browser: Browser, baseUrl: string, viewport = { width: 1280, height: 900 }) => {
  const context = await browser.newContext({ viewport, acceptDownloads: true })
  const page = await context.newPage()
  const origin = new URL(baseUrl).origin
  const foreign: Array<string> = []
  const consoleErrors: Array<string> = []
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith(origin) && !url.startsWith("blob:") && !url.startsWith("data:")) foreign.push(url)
  })
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text())
  })
  page.on("pageerror", (error) => consoleErrors.push(String(error)))
  return { page, context, foreign, consoleErrors }
}

export const screenshot = async (page: Page, name: string) => {
  await mkdir(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** Signs in on the sign-in page with an API key (kept in the page's memory). */
export const signInWithKey = async (page: Page, baseUrl: string, key: string) => {
  await page.goto(`${baseUrl}/links`)
  await page.getByText("Use an API key instead").click()
  await page.getByLabel("API key", { exact: true }).fill(key)
  await page.getByRole("button", { name: "Sign in with the key" }).click()
  await page.getByRole("heading", { name: "Links" }).waitFor()
}

/**
 * Signs in with email and password (a session cookie), until the page shows the heading `landing`
 * (the links; after a one-time password, the page that asks for a new one). The requests made
 * before signing in count against the address's anonymous allowance (30 a minute), which a file of
 * browser tests, all from 127.0.0.1, can use up: refused for that, it waits as the page says and
 * tries again, as a person would.
 */
export const signInWithPassword = async (page: Page, baseUrl: string, email: string, password: string, landing = "Links", retries = 2): Promise<void> => {
  try {
    await signInOnce(page, baseUrl, email, password, landing)
  } catch (error) {
    const wait = /Rate limit of \d+ requests per minute exceeded; retry in (\d+) s/.exec(String(error))
    if (wait === null || retries === 0) throw error
    await sleep((Number(wait[1]) + 1) * 1000)
    return signInWithPassword(page, baseUrl, email, password, landing, retries - 1)
  }
}

const signInOnce = async (page: Page, baseUrl: string, email: string, password: string, landing: string) => {
  await page.goto(`${baseUrl}/`)
  await page.getByLabel("Email", { exact: true }).fill(email)
  await page.getByLabel("Password", { exact: true }).fill(password)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
  // Signed in, or refused in words: a refusal fails here with what the page said. Generous: on a
  // busy machine the password hash and the client's first load take a while.
  const landed = page.getByRole("heading", { name: landing })
  const alert = page.getByRole("alert")
  await landed.or(alert).first().waitFor({ timeout: 60_000 })
  if (!(await landed.isVisible())) throw new Error(`sign-in refused: ${await alert.first().textContent()}`)
}
