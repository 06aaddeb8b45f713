import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * aria-label names an element only where its role allows a name (a section so named is a region): on a plain span, div or p
 * without a role, ARIA prohibits it and screen readers ignore it (axe: aria-prohibited-attr).
 * The browser walk finds such an element only while it is on screen (a loading skeleton may be
 * gone before axe runs), so the sources are read here.
 */
const GENERIC = new Set(["span", "div", "p", "strong", "em", "small", "b", "i", "code", "pre"])

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return entry.name.endsWith(".tsx") ? [full] : []
  })

const namedGenericElements = (file: string): Array<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const found: Array<string> = []
  const visit = (node: ts.Node) => {
    if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      const tag = node.tagName.getText(source)
      const names = node.attributes.properties.filter(ts.isJsxAttribute).map((a) => a.name.getText(source))
      if (GENERIC.has(tag) && (names.includes("aria-label") || names.includes("aria-labelledby")) && !names.includes("role")) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
        found.push(`${path.relative(process.cwd(), file)}:${line + 1} <${tag}>`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("dashboard sources", () => {
  it("name no generic element without a role (aria-label on a plain span is prohibited)", () => {
    expect(sources(path.join(import.meta.dirname, "../../dashboard/src")).flatMap(namedGenericElements)).toEqual([])
  })
})
