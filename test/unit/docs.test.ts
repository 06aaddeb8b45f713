import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

/**
 * The documents a newcomer reads: the README stays short and leads everywhere through its table
 * of contents, its Layout names the folders there are, and no relative link in the README,
 * docs/ or bench/README.md points at a file or heading that is not there. The npm commands they
 * tell people to type exist, and bench/README.md has figures for every scenario with results.
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

/** The body of a `## ` section, up to the next one. */
const sectionOf = (markdown: string, heading: string): string => {
  const start = markdown.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`no '## ${heading}' section`)
  const end = markdown.indexOf("\n## ", start + 1)
  return markdown.slice(start, end < 0 ? undefined : end)
}

/**
 * The paths the README's Layout block names: a line's first column (up to two spaces), words
 * ending in `/` or naming a file; an indented line's paths are under the last top-level folder,
 * and lines indented further continue a description.
 */
const layoutPaths = (layout: string): Array<string> => {
  const block = /```\n([\s\S]*?)```/.exec(layout)
  if (block === null) throw new Error("the Layout section has no code block")
  const paths: Array<string> = []
  let parent = ""
  for (const line of block[1].split("\n")) {
    const indent = /^ */.exec(line)![0].length
    if (line.trim() === "" || indent > 2) continue
    const column = line.trim().split(/ {2,}/)[0]
    const words = column.split(" ").filter((word) => word.endsWith("/") || /\.[a-z]+$/.test(word))
    if (indent === 0) parent = words.length === 1 && words[0].endsWith("/") ? words[0] : ""
    paths.push(...words.map((word) => (indent === 0 ? word : parent + word)))
  }
  return paths
}

/** Folders a layout must describe: the tracked ones at the top, and those of control/ and engine/. */
const IGNORED = new Set(["node_modules", "data"])
const foldersUnder = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && !IGNORED.has(entry.name))
    .map((entry) => `${dir === "" ? "" : `${dir}/`}${entry.name}/`)

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

  it("describes the tree as it is: every path its Layout names exists, and it names every folder of the top, control/ and engine/", () => {
    const named = layoutPaths(sectionOf(readme, "Layout"))
    expect(named.length).toBeGreaterThan(20)
    expect(named.filter((name) => !existsSync(path.join(root, name)))).toEqual([])
    const folders = [...foldersUnder(""), ...foldersUnder("control"), ...foldersUnder("engine")]
    expect(folders.filter((folder) => !named.includes(folder))).toEqual([])
  })
})

describe("bench/README.md", () => {
  const bench = read("bench/README.md")
  const scenarios = readdirSync(path.join(root, "bench/scenarios")).filter((name) => name.endsWith(".ts")).map((name) => name.slice(0, -3))
  const rowsOf = (section: string) => [...sectionOf(bench, section).matchAll(/^\| `([a-z-]+)`/gm)].map((m) => m[1])

  it("describes every scenario, and has current figures for every one with results", () => {
    expect(scenarios.length).toBeGreaterThan(5)
    expect(rowsOf("Scenarios").sort()).toEqual([...scenarios].sort())
    const results = readdirSync(path.join(root, "bench/results")).filter((name) => name.endsWith(".json")).map((name) => name.slice(0, -5))
    expect(rowsOf("Current figures").sort()).toEqual([...results].sort())
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
