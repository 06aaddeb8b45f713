import { PGlite, type PGliteOptions } from "@electric-sql/pglite"
import { spawnSync } from "node:child_process"
import { copyFile, mkdir, readFile, utimes, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEMPLATE_FILE } from "../../control/db/embeddedTemplate.ts"
import { DIST } from "../../scripts/build.ts"
import {
  apiClient,
  type ControlHandle,
  eventually,
  removeDir,
  runCli,
  startControl,
  tempDir,
  visit
} from "../support/processes.ts"

/**
 * The processes run JavaScript built in dist/ (issue 23, "A compiled runtime"), never a build older
 * than its sources; a new embedded database is unpacked from the one the build made; and in every thread:
 * `npm start` with two HTTP worker threads, its click writer thread and its QR render threads, and
 * the CLI, load neither tsx nor a TypeScript file. Each thread preloads test/support/noTypeScript.mjs
 * (through NODE_OPTIONS, which threads inherit), whose module hook fails whatever would load one.
 */

const NO_TYPESCRIPT = fileURLToPath(new URL("../support/noTypeScript.mjs", import.meta.url))
const FIRST_HOST = "my-workspace.localhost"

interface Status {
  readonly workers: number
  readonly clicks: { readonly people: number }
  readonly sink: { readonly acknowledged: number }
}

describe("the built runtime", () => {
  let dir: string
  let control: ControlHandle
  let env: Record<string, string | undefined>

  beforeAll(async () => {
    dir = await tempDir()
    env = {
      NODE_OPTIONS: `--import=${NO_TYPESCRIPT}`,
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: undefined,
      NATS_URL: undefined,
      RICOCHET_ENGINE_WORKERS: "2",
      RICOCHET_LINK_SCHEME: "http"
    }
    control = await startControl(env)
  })

  afterAll(async () => {
    await control?.stop()
    if (dir) await removeDir(dir)
  })

  it("serves redirects from its HTTP worker threads, writes their clicks, renders QR codes, with no TypeScript in any thread", async () => {
    const api = apiClient(control.baseUrl, control.firstKey)
    const created = await api.post("/v1/links", { url: "https://example.com/built", slug: "built" })
    expect(created.status).toBe(201)
    const engineUrl = `http://127.0.0.1:${control.env.RICOCHET_ENGINE_PORT}`
    const status = async () => (await (await fetch(`${engineUrl}/.well-known/ricochet/status`)).json()) as Status
    expect((await status()).workers).toBe(2)

    await eventually(async () => (await visit(engineUrl, FIRST_HOST, "/built")).location === "https://example.com/built", 10_000, 100)
    // The click writer thread took it.
    await eventually(async () => (await status()).sink.acknowledged >= 1, 20_000, 200)

    const qr = await fetch(`${control.baseUrl}/v1/links/${created.body.id}/qr`, { headers: { authorization: `Bearer ${control.firstKey}` } })
    expect(qr.status).toBe(200)
    expect(qr.headers.get("content-type")).toBe("image/png")

    expect(control.output()).not.toContain("TypeScript loaded")
  })

  it("runs a CLI command the same way", async () => {
    const { code, output } = await runCli(["workspace", "list", "--json"], env)
    expect(output).not.toContain("TypeScript loaded")
    expect(code, output).toBe(0)
    expect(output).toContain(`"slug":"my-workspace"`)
  })
})

describe("a build older than its sources", () => {
  it("is refused by npm start with one line naming the source changed since", async () => {
    // A copy of the project's build beside a main.ts saved after it was made.
    const root = await tempDir()
    try {
      await mkdir(path.join(root, "dist"))
      for (const file of ["main.js", "build.json"]) await copyFile(path.join(DIST, file), path.join(root, "dist", file))
      await writeFile(path.join(root, "main.ts"), "")
      const later = new Date(Date.now() + 60_000)
      await utimes(path.join(root, "main.ts"), later, later)
      const start = spawnSync(process.execPath, [path.join(root, "dist/main.js")], { encoding: "utf8", timeout: 30_000 })
      expect(start.status).toBe(1)
      expect(`${start.stdout}${start.stderr}`.trim().split("\n")).toEqual([
        "ricochet: the build in dist/ is older than main.ts: run `npm run build` (or `npm run dev` to run the sources as they are)"
      ])
    } finally {
      await removeDir(root)
    }
  })
})

describe("a new embedded data directory", () => {
  /** Every cluster initdb makes has an identifier of its own; copies of one share it. */
  const systemIdentifier = async (options: PGliteOptions) => {
    const db = await PGlite.create(options)
    try {
      return (await db.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()")).rows[0]!.id
    } finally {
      await db.close()
    }
  }

  it("is a copy of the build's database (initdb and migrations done), not made by initdb", async () => {
    const dir = await tempDir()
    try {
      const { code, output } = await runCli(["workspace", "create", "--name", "Fresh", "--plan", "pro", "--json"], {
        RICOCHET_DATA_DIR: dir,
        DATABASE_URL: undefined,
        NATS_URL: undefined
      })
      expect(code, output).toBe(0)
      const template = await systemIdentifier({ loadDataDir: new Blob([await readFile(path.join(DIST, TEMPLATE_FILE))]) })
      expect(await systemIdentifier({ dataDir: path.join(dir, "pg") })).toBe(template)
    } finally {
      await removeDir(dir)
    }
  })
})
