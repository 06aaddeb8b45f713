import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { PROCESSES } from "../../scripts/build.ts"
import { ConfigError, loadConfig, type RicochetConfig } from "../../shared/config.ts"
import {
  type ComposeService,
  commandOf,
  configurationTable,
  copySources,
  dependencies,
  dockerignorePatterns,
  dockerStages,
  envInstruction,
  execForm,
  ignoredByDocker,
  mounts,
  publishedPorts,
  serviceEnvironment,
  variablesReadBy
} from "../support/deployFiles.ts"

/**
 * The Dockerfile and compose.yaml against the configuration reference (the README's Configuration
 * table) and against what the code reads (shared/config.ts): no image can be built or pulled
 * where the tests run, so this is what can be checked of them. Also keeps the table itself true
 * to loadConfig.
 */

const root = path.resolve(import.meta.dirname, "../..")
const read = (file: string) => readFileSync(path.join(root, file), "utf8")

const table = configurationTable(read("README.md"))
const documented = new Set(table.map((row) => row.variable))
const configSource = read("shared/config.ts")
const stages = dockerStages(read("Dockerfile"))
const finalStage = stages[stages.length - 1]
const compose = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, ComposeService> }
const services = Object.entries(compose.services)
const defaults = loadConfig({})

/** Variables the configuration reference is about (other images' own variables are theirs). */
const isRicochetVariable = (name: string) => name.startsWith("RICOCHET_") || name === "DATABASE_URL" || name === "NATS_URL"

const instructionsOf = (keyword: string) => finalStage.instructions.filter((i) => i.keyword === keyword)
/** What the image's ENV sets; a container sees it under the service's own environment. */
const imageEnvironment = Object.assign({}, ...instructionsOf("ENV").map((i) => envInstruction(i.args))) as Record<string, string>

const configOf = (env: Record<string, string>): RicochetConfig => loadConfig({ ...imageEnvironment, ...env })

/** Services run from this repository's image, by the role their command gives them. */
const ricochetServices = services.filter(([, service]) => service.build !== undefined)
const roleOf = (service: ComposeService): "control" | "engine" | "all" => {
  const command = commandOf(service)
  if (command.includes("dist/ricochet.js") && command.at(-1) === "control") return "control"
  if (command.includes("dist/ricochet.js") && command.at(-1) === "engine") return "engine"
  if (command.length === 0 || command.includes("dist/main.js")) return "all"
  throw new Error(`a service of the image runs ${command.join(" ")}`)
}
const controls = ricochetServices.filter(([, s]) => roleOf(s) === "control")
const engines = ricochetServices.filter(([, s]) => roleOf(s) === "engine")

/** Every file under a directory of the repository, relative to the root. */
const filesUnder = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))

const sourcesMention = (dir: string, text: string) =>
  filesUnder(dir).some((file) => file.endsWith(".ts") && read(file).includes(text))

describe("the README's Configuration table", () => {
  it("lists every variable loadConfig reads, and no other", () => {
    const readByCode = variablesReadBy(configSource)
    expect(readByCode.length).toBeGreaterThan(20)
    expect([...documented].sort()).toEqual([...readByCode].sort())
  })

  // A default written as a value (`3000`, `./data`, `false`) must be the one loadConfig applies:
  // setting the variable to it changes nothing. Defaults described in words or derived from
  // another variable (`DATA_DIR/clicks`, `{hostname}-{port}`) are not values.
  const literalDefaults = table.filter((row) => /^`[^`{}]+`$/.test(row.default) && !row.default.includes("DATA_DIR"))
  it("has defaults to check", () => expect(literalDefaults.length).toBeGreaterThanOrEqual(15))
  it.each(literalDefaults.map((row) => [row.variable, row.default.slice(1, -1)] as const))("%s defaults to %s", (variable, value) => {
    expect(loadConfig({ [variable]: value })).toEqual(defaults)
  })
})

describe("compose.yaml", () => {
  it("runs PostgreSQL 15, NATS with JetStream, one control and two engines of this image", () => {
    const images = services.map(([, s]) => s.image ?? "")
    expect(images.filter((image) => /^postgres:15(\b|-)/.test(image))).toHaveLength(1)
    const nats = services.filter(([, s]) => /^nats:/.test(s.image ?? ""))
    expect(nats).toHaveLength(1)
    expect(commandOf(nats[0][1]).some((arg) => arg === "--jetstream" || arg === "-js")).toBe(true)
    expect(controls).toHaveLength(1)
    expect(engines).toHaveLength(2)
  })

  it("runs the image's entry points, which the build makes", () => {
    const built = new Set(PROCESSES.map(({ name }) => `dist/${name}.js`))
    for (const [, service] of ricochetServices) {
      for (const arg of commandOf(service).filter((a) => /\.[cm]?[jt]s$/.test(a))) expect(built.has(arg), arg).toBe(true)
    }
  })

  describe.each(ricochetServices.map(([name, service]) => [name, service] as const))("%s", (_name, service) => {
    const env = serviceEnvironment(service)

    it("sets only variables the configuration reference documents", () => {
      const set = Object.keys(env).filter(isRicochetVariable)
      expect(set).toContain("DATABASE_URL")
      expect(set.filter((name) => !documented.has(name))).toEqual([])
    })

    it("has an environment loadConfig accepts", () => {
      let error: unknown
      try {
        configOf(env)
      } catch (e) {
        error = e
      }
      expect(error instanceof ConfigError ? error.message : error).toBeUndefined()
    })

    it("publishes the ports it listens on (an engine's operator port on loopback only)", () => {
      const config = configOf(env)
      const listens = roleOf(service) === "engine"
        ? [config.enginePort, config.engineAdminPort]
        : roleOf(service) === "control"
        ? [config.apiPort]
        : [config.apiPort, config.enginePort, config.engineAdminPort]
      expect(publishedPorts(service).map((p) => p.container).sort()).toEqual(listens.sort())
      const operator = (service.ports ?? []).filter((port) => String(port).endsWith(`:${config.engineAdminPort}`))
      for (const port of operator) expect(String(port)).toMatch(/^127\.0\.0\.1:/)
    })

    it("uses the postgres and nats services", () => {
      const config = configOf(env)
      const postgres = services.find(([, s]) => /^postgres:/.test(s.image ?? ""))![0]
      const nats = services.find(([, s]) => /^nats:/.test(s.image ?? ""))![0]
      expect(new URL(config.databaseUrl!).hostname).toBe(postgres)
      expect(new URL(config.natsUrl!).hostname).toBe(nats)
      expect(dependencies(service)).toMatchObject({ [postgres]: "service_healthy", [nats]: "service_healthy" })
    })
  })

  it("publishes each host port once", () => {
    const hostPorts = services.flatMap(([, s]) => publishedPorts(s).map((p) => p.host))
    expect(hostPorts.length).toBeGreaterThanOrEqual(3)
    expect(new Set(hostPorts).size).toBe(hostPorts.length)
  })

  it("gives engines distinct ids, one clicks volume at RICOCHET_CLICKS_DIR with control, and spools on a volume", () => {
    const ids = engines.map(([, s]) => configOf(serviceEnvironment(s)).engineId)
    expect(ids.every((id) => id !== undefined)).toBe(true)
    expect(new Set(ids).size).toBe(engines.length)
    const clicksVolume = ([, s]: readonly [string, ComposeService]) => {
      const config = configOf(serviceEnvironment(s))
      return mounts(s).find((m) => m.target === config.clicksDir)?.source
    }
    const volumes = [...engines, ...controls].map(clicksVolume)
    expect(volumes[0]).toMatch(/^[A-Za-z0-9][\w.-]*$/)
    expect(new Set(volumes)).toEqual(new Set([volumes[0]]))
    expect(Object.keys((compose as { volumes?: object }).volumes ?? {})).toContain(volumes[0])
    for (const [, engine] of engines) {
      const config = configOf(serviceEnvironment(engine))
      expect(mounts(engine).some((m) => m.target === config.spoolDir), "spool directory on a volume").toBe(true)
    }
  })

  it("checks every service's health, and engines start once control is healthy", () => {
    for (const [name, service] of services) {
      const own = service.healthcheck
      expect(own?.disable ?? false, name).toBe(false)
      // Services of this image without a check of their own use the Dockerfile's.
      if (own?.test === undefined) expect(service.build !== undefined && roleOf(service) !== "engine", name).toBe(true)
    }
    const control = controls[0][0]
    for (const [, engine] of engines) {
      expect(dependencies(engine)[control]).toBe("service_healthy")
      const test = engine.healthcheck!.test as ReadonlyArray<string>
      const script = test.at(-1)!
      expect(script).toContain("/.well-known/ricochet/status")
      expect(script).toContain("process.env.RICOCHET_ENGINE_PORT")
      expect(sourcesMention("engine", '"/.well-known/ricochet/status"')).toBe(true)
    }
  })
})

describe("Dockerfile", () => {
  /** The ABI (process.versions.modules) of each Node major the uWebSockets.js binaries are named by. */
  const NODE_ABI: Record<string, string> = { "16": "93", "18": "108", "20": "115", "22": "127", "24": "137" }

  it("builds on Node 20, Debian bookworm slim, in more than one stage", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    for (const stage of stages) expect(stage.image).toBe("node:20-bookworm-slim")
  })

  it("runs a Node whose ABI the uWebSockets.js package has a Linux binary for", () => {
    const major = /^node:(\d+)-/.exec(finalStage.image)![1]
    const binaries = readdirSync(path.join(root, "node_modules/uWebSockets.js/binaries"))
    expect(binaries).toContain(`uws_linux_x64_${NODE_ABI[major]}.node`)
  })

  it("installs with npm ci and copies only production packages into the runtime stage", () => {
    const install = stages[0].instructions.filter((i) => i.keyword === "RUN").map((i) => i.args).join(" ")
    expect(install).toMatch(/npm ci\b[^&]*--omit=dev/)
    expect(instructionsOf("COPY").some((i) => /--from=/.test(i.args) && /node_modules/.test(i.args))).toBe(true)
    expect(instructionsOf("RUN").some((i) => /npm (ci|install)/.test(i.args))).toBe(false)
  })

  it("applies patches/apply.mjs after installing, as npm's postinstall does elsewhere (the image skips install scripts)", () => {
    const install = stages[0].instructions.filter((i) => i.keyword === "RUN").map((i) => i.args).join(" ")
    expect(install).toMatch(/npm ci\b[^&]*--ignore-scripts[^]*&& node patches\/apply\.mjs/)
    expect(JSON.parse(read("package.json")).scripts.postinstall).toBe("node patches/apply.mjs")
  })

  it("runs as a user other than root", () => {
    const user = instructionsOf("USER").at(-1)?.args
    expect(user).toBeDefined()
    expect(["root", "0"]).not.toContain(user!.split(":")[0])
  })

  it("sets only documented variables", () => {
    expect(Object.keys(imageEnvironment).filter(isRicochetVariable).filter((name) => !documented.has(name))).toEqual([])
  })

  it("exposes the default API and engine ports", () => {
    const exposed = instructionsOf("EXPOSE").flatMap((i) => i.args.split(/\s+/)).map((p) => Number(p.replace(/\/tcp$/, "")))
    expect(exposed).toEqual(expect.arrayContaining([defaults.apiPort, defaults.enginePort]))
  })

  it("checks health with GET /healthz on RICOCHET_API_PORT, which control serves", () => {
    const [check] = instructionsOf("HEALTHCHECK")
    const command = execForm(check.args.slice(check.args.indexOf("CMD") + 3).trim())
    expect(command.slice(0, 2)).toEqual(["node", "-e"])
    const script = command[2]
    expect(script).toContain("/healthz")
    expect(script).toContain(`process.env.RICOCHET_API_PORT || ${defaults.apiPort}`)
    expect(sourcesMention("control", '"/healthz"')).toBe(true)
  })

  it("starts npm start's process by default, from the build, without tsx", () => {
    const entrypoint = execForm(instructionsOf("ENTRYPOINT").at(-1)!.args)
    const command = execForm(instructionsOf("CMD").at(-1)!.args)
    expect(entrypoint).toEqual(["node"])
    expect(`node ${command.join(" ")}`).toBe(JSON.parse(read("package.json")).scripts.start)
    // The image installs production packages only: the build runs without tsx.
    expect(JSON.parse(read("package.json")).dependencies.tsx).toBeUndefined()
  })

  it("copies in the build made by a stage that built it as npm ci does: patched packages, then the build", () => {
    const copies = instructionsOf("COPY").map((i) => i.args.split(/\s+/))
    const fromStage = (target: string) => copies.find((words) => words.at(-1) === target && words.some((w) => w.startsWith("--from=")))
    const distCopy = fromStage("./dist")
    expect(distCopy).toBeDefined()
    const builder = stages.find((stage) => stage.name === distCopy!.find((w) => w.startsWith("--from="))!.slice("--from=".length))!
    const runs = builder.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args).join(" && ")
    expect(runs.indexOf("node patches/apply.mjs")).toBeGreaterThan(-1)
    expect(runs.indexOf("scripts/build.ts")).toBeGreaterThan(runs.indexOf("node patches/apply.mjs"))
  })

  it("copies sources that exist and that .dockerignore lets through, and keeps the rest out", () => {
    const patterns = dockerignorePatterns(read(".dockerignore"))
    const sources = stages.flatMap((stage) => stage.instructions.filter((i) => i.keyword === "COPY").flatMap((i) => copySources(i.args)))
    expect(sources).toEqual(expect.arrayContaining(["package.json", "package-lock.json", "main.ts"]))
    for (const source of sources) {
      expect(existsSync(path.join(root, source)), source).toBe(true)
      expect(ignoredByDocker(patterns, source), source).toBe(false)
    }
    for (const kept of ["node_modules", "data", "bench/results", "test", ".git", "server.log"]) {
      expect(ignoredByDocker(patterns, kept), kept).toBe(true)
    }
  })
})
