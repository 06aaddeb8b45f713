import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

let source: Promise<string> | undefined

/**
 * axe-core's findings on the page as it is, every impact: injected through the debugging protocol
 * (not a script tag, which the dashboard's CSP would rightly refuse). Each violation as
 * "rule: target, target" so a failure names what to fix.
 */
export const axeViolations = async (page: Page): Promise<Array<string>> => {
  source ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
  const code = await source
  // A string is evaluated as a script by the debugging protocol itself, outside the page's CSP.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(code)
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: Array<string> }> }> }> } }).axe
    return axe.run(document, { resultTypes: ["violations"] })
  })
  return results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`)
}
