import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser, openPage, type RunningBrowser, screenshot } from "../support/browser.ts"
import { type ControlHandle, removeDir, startControl, tempDir } from "../support/processes.ts"

/**
 * The API reference page (/v1/docs) in Debian's chromium under its Content-Security-Policy: the
 * reference renders and its "Test Request" client calls the API, with nothing refused but one
 * probe, nothing loaded from another host, and a script added to the page refused.
 */

/** Every CSP violation the page reports, as "directive blocked-uri". */
const collectViolations = async (page: Page): Promise<Array<string>> => {
  const violations: Array<string> = []
  await page.exposeFunction("reportViolation", (text: string) => violations.push(text))
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      ;(window as unknown as { reportViolation: (text: string) => void }).reportViolation(`${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  return violations
}

/**
 * Scalar's bundle asks whether it may compile code (`try { new Function("") } catch`, the probe
 * of its schema library, which then validates without compiling): refusing it is the point of
 * leaving out 'unsafe-eval', and the only violation the page may report.
 */
const EVAL_PROBE = "script-src eval"

describe("API reference page under its CSP", () => {
  let ctl: ControlHandle
  let dir: string
  let chromium: RunningBrowser

  beforeAll(async () => {
    dir = await tempDir()
    ctl = await startControl({ RICOCHET_DATA_DIR: dir, NATS_URL: undefined }, true)
    chromium = await launchBrowser()
  }, 180_000)

  afterAll(async () => {
    await chromium?.close()
    await ctl?.stop()
    await removeDir(dir)
  })

  it("renders the reference and its request client, with no script but its own and nothing else refused", async () => {
    const { page, foreign } = await openPage(chromium.browser, ctl.baseUrl)
    const violations = await collectViolations(page)
    const consoleErrors: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(`${message.text()} ${message.location().url}`)
    })
    const response = await page.goto(`${ctl.baseUrl}/v1/docs`)
    expect(response?.status()).toBe(200)
    const headers = response!.headers()
    expect(headers["content-security-policy"]).toMatch(/script-src 'sha256-[^']+' 'sha256-[^']+';/)
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'")
    expect(headers["x-frame-options"]).toBe("DENY")
    expect(headers["x-content-type-options"]).toBe("nosniff")
    // Scalar builds the page from the document in it: the title and operations of both ends show.
    await page.getByText("Create a link").first().waitFor({ timeout: 60_000 })
    await page.getByText("Ricochet API").first().waitFor()
    await page.getByText("QR code of a link, PNG or SVG").first().waitFor()
    await screenshot(page, "reference-page")
    // Its client sends a request to this origin (connect-src 'self'): without a key, a 401.
    await page.getByRole("button", { name: /Test Request/ }).first().click()
    const sent = page.waitForResponse((r) => r.url() === `${ctl.baseUrl}/v1/links`)
    await page.getByRole("button", { name: /^Send/ }).first().click()
    expect((await sent).status()).toBe(401)
    await page.getByText("401").first().waitFor()

    expect(violations.filter((v) => !v.startsWith(EVAL_PROBE))).toEqual([])
    // The browser's own favicon request (the page names none) and the 401 asked for are the only errors.
    expect(consoleErrors.filter((e) => !e.endsWith("/favicon.ico") && !e.endsWith("/v1/links"))).toEqual([])
    expect(foreign).toEqual([])
  })

  it("runs no script the policy does not name: one added to the page is refused", async () => {
    const { page } = await openPage(chromium.browser, ctl.baseUrl)
    const violations = await collectViolations(page)
    await page.goto(`${ctl.baseUrl}/v1/docs`)
    await page.getByText("Create a link").first().waitFor({ timeout: 60_000 })
    const ran = await page.evaluate(() => {
      const script = document.createElement("script")
      script.textContent = "window.injected = true"
      document.body.append(script)
      return (window as unknown as { injected?: boolean }).injected === true
    })
    expect(ran).toBe(false)
    await expect.poll(() => violations.some((v) => v.startsWith("script-src-elem inline"))).toBe(true)
  })
})
