import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The documents a newcomer reads: the README stays short and leads everywhere through its table
 * of contents, and no relative link in the README, docs/ or bench/README.md points at a file or
 * heading that is not there. The npm commands they tell people to type exist.
 */

const root = path.resolve(import.meta.dirname, "../..")
const read = (file: string) => readFileSync(path.join(root, file), "utf8")

const DOCUMENTS = [
  "README.md",
  "bench/README.md",
  ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)
]

/** The text outside fenced code blocks, line by line (a heading or link inside one is an example). */
const proseLines = (markdown: string): Array<string> => {
  const out: Array<string> = []
  let fenced = false
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      continue
    }
    if (!fenced) out.push(line)
  }
  return out
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
const slugOf = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

/** Every heading's anchor in a document, repeats numbered as GitHub numbers them (`-1`, `-2`). */
const anchorsOf = (markdown: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading === null) continue
    const slug = slugOf(heading[1])
    const count = seen.get(slug) ?? 0
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
    seen.set(slug, count + 1)
  }
  return anchors
}

/** Targets of `[text](target)` links in prose, inline code left out. */
const linksOf = (markdown: string): Array<string> =>
  proseLines(markdown)
    .map((line) => line.replace(/`[^`]*`/g, ""))
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]))

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

describe("README.md", () => {
  const readme = read("README.md")

  it("is at most 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300)
  })

  it("has a table of contents naming every section", () => {
    const sections = proseLines(readme).filter((line) => line.startsWith("## ")).map((line) => slugOf(line.slice(3)))
    const contentsAt = sections.indexOf("contents")
    expect(contentsAt).toBeGreaterThanOrEqual(0)
    const contents = readme.slice(readme.indexOf("## Contents"), readme.indexOf("\n## ", readme.indexOf("## Contents") + 1))
    const listed = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1])
    expect(listed).toEqual(sections.filter((slug) => slug !== "contents"))
  })

  it("tells people to run the test command CI runs", () => {
    const ciCommand = read(".ci/run").trim().split("\n").at(-1)
    expect(ciCommand).toBe("npm test")
    const test = readme.slice(readme.indexOf("\n## Test\n"), readme.indexOf("\n## ", readme.indexOf("\n## Test\n") + 1))
    expect(test).toMatch(/^npm test\b/m)
    expect(test).toMatch(/^npm run test:faults\b/m)
  })
})

describe.each(DOCUMENTS)("%s", (file) => {
  const text = read(file)
  const links = linksOf(text).filter((target) => !isExternal(target))

  it("has relative links to check", () => {
    expect(links.length).toBeGreaterThan(0)
  })

  it.each(links.map((target) => [target]))("links to %s, which exists", (target) => {
    const [linkPath, anchor] = target.split("#", 2)
    const resolved = linkPath === "" ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURI(linkPath))
    expect(existsSync(resolved), `${file} links to ${target}`).toBe(true)
    if (anchor === undefined || anchor === "") return
    expect(resolved.endsWith(".md") && statSync(resolved).isFile(), `${target}: anchors are checked in Markdown files only`).toBe(true)
    expect([...anchorsOf(readFileSync(resolved, "utf8"))], `${file} links to ${target}`).toContain(anchor)
  })

  it("names only npm scripts package.json has", () => {
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts as Record<string, string>)
    const named = [...text.matchAll(/\bnpm run (?:--silent )?([a-z][\w:-]*)/g)].map((m) => m[1])
    if (/\bnpm (test|start)\b/.test(text)) named.push(...[...text.matchAll(/\bnpm (test|start)\b/g)].map((m) => m[1]))
    expect([...new Set(named)].filter((name) => !scripts.includes(name))).toEqual([])
  })
})
