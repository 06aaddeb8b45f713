import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { probesFor, roleOf as healthcheckRoleOf } from "../../cli/healthcheck.mjs"
import { STOP_DEADLINE_MS } from "../../engine/http/stopping.ts"
import { natsServer } from "../../shared/bus/natsServer.ts"
import { PROCESSES } from "../../scripts/build.ts"
import { ConfigError, loadConfig, type RicochetConfig, ricochetConfig } from "../../config.ts"
import {
  type ComposeService,
  commandOf,
  composeSeconds,
  configurationTable,
  copySources,
  dependencies,
  dockerignorePatterns,
  dockerStages,
  envInstruction,
  execForm,
  ignoredByDocker,
  interpolateCompose,
  mounts,
  publishedPorts,
  serviceEnvironment,
  variablesReadBy
} from "../support/deployFiles.ts"

/**
 * The Dockerfile and compose.yaml against the configuration reference (the tables of
 * docs/configuration.md) and against what the code reads (config.ts): no image can be
 * built or pulled where the tests run, so this is what can be checked of them. Also keeps the
 * tables themselves true to loadConfig.
 */

const root = path.resolve(import.meta.dirname, "../..")
const read = (file: string) => readFileSync(path.join(root, file), "utf8")

const table = configurationTable(read("docs/configuration.md"))
const documented = new Set(table.map((row) => row.variable))
const stages = dockerStages(read("Dockerfile"))
const finalStage = stages[stages.length - 1]
type ComposeFile = { services: Record<string, ComposeService>; volumes?: Record<string, unknown> }
/** compose.yaml as written, and as `docker compose` runs it with NATS_PASSWORD set. */
const composeAsWritten = parse(read("compose.yaml"), { merge: true }) as ComposeFile
const NATS_PASSWORD = "compose-test-password"
const compose = interpolateCompose(composeAsWritten, { NATS_PASSWORD })
const services = Object.entries(compose.services)
const defaults = loadConfig({})

/** Variables the configuration reference is about (other images' own variables are theirs). */
const isRicochetVariable = (name: string) => name.startsWith("RICOCHET_") || name === "DATABASE_URL" || name === "NATS_URL"

const instructionsOf = (keyword: string) => finalStage.instructions.filter((i) => i.keyword === keyword)
/** An image named by its digest (`name:tag@sha256:…`, the tag kept for people). */
const PINNED = /^[a-z0-9][\w./-]*:[\w.-]+@sha256:[0-9a-f]{64}$/
/** What the image's ENV sets; a container sees it under the service's own environment. */
const imageEnvironment = Object.assign({}, ...instructionsOf("ENV").map((i) => envInstruction(i.args))) as Record<string, string>

const configOf = (env: Record<string, string>): RicochetConfig => loadConfig({ ...imageEnvironment, ...env })

/** The image's HEALTHCHECK: its options (`--interval=10s` …) and its CMD in exec form. */
const imageHealthcheck = () => {
  const [check] = instructionsOf("HEALTHCHECK")
  const at = check.args.indexOf("CMD")
  const options = Object.fromEntries(check.args.slice(0, at).trim().split(/\s+/).filter((o) => o !== "").map((o) => o.split("=") as [string, string]))
  return { options, command: check.args.slice(at + 3).trim() }
}

const copySourcesOf = (stage: (typeof stages)[number]) => stage.instructions.filter((i) => i.keyword === "COPY").flatMap((i) => copySources(i.args))

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

describe("the configuration reference (docs/configuration.md)", () => {
  it("lists every variable loadConfig reads, and no other", () => {
    const readByCode = variablesReadBy(ricochetConfig)
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

    it("publishes the ports it listens on (operator ports on loopback only)", () => {
      const config = configOf(env)
      const listens = roleOf(service) === "engine"
        ? [config.enginePort, config.engineAdminPort]
        : roleOf(service) === "control"
        ? [config.apiPort, config.controlAdminPort]
        : [config.apiPort, config.controlAdminPort, config.enginePort, config.engineAdminPort]
      expect(publishedPorts(service).map((p) => p.container).sort()).toEqual(listens.sort())
      const operatorPorts = roleOf(service) === "engine" ? [config.engineAdminPort] : [config.controlAdminPort, config.engineAdminPort]
      const operator = (service.ports ?? []).filter((port) => operatorPorts.some((p) => String(port).endsWith(`:${p}`)))
      expect(operator.length).toBeGreaterThan(0)
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

  it("checks every service's health: its own check, or the image's, which probes the readiness of its role", () => {
    const imageCheck = execForm(imageHealthcheck().command)
    const entrypoint = execForm(instructionsOf("ENTRYPOINT").at(-1)!.args)
    for (const [name, service] of services) {
      const own = service.healthcheck
      expect(own?.disable ?? false, name).toBe(false)
      if (own?.test !== undefined) continue
      // Only this image's services may go without a check of their own: they get the image's.
      expect(service.build !== undefined, name).toBe(true)
      expect(imageCheck, name).toEqual(["node", "cli/healthcheck.mjs"])
      // What the check reads of PID 1 gives the role the service runs, and the port it listens on.
      const role = roleOf(service)
      expect(healthcheckRoleOf([...entrypoint, ...commandOf(service)]), name).toBe(role)
      const config = configOf(serviceEnvironment(service))
      const expected = role === "engine"
        ? [`http://127.0.0.1:${config.engineAdminPort}/readyz`]
        : role === "control"
        ? [`http://127.0.0.1:${config.apiPort}/readyz`]
        : [`http://127.0.0.1:${config.apiPort}/readyz`, `http://127.0.0.1:${config.engineAdminPort}/readyz`]
      expect(probesFor(role, { ...imageEnvironment, ...serviceEnvironment(service) }), name).toEqual(expected)
    }
    const control = controls[0][0]
    for (const [, engine] of engines) expect(dependencies(engine)[control]).toBe("service_healthy")
    expect(sourcesMention("control", '"/readyz"')).toBe(true)
    expect(sourcesMention("engine", '"/readyz"')).toBe(true)
  })

  it("gives control and the engines time to stop: 30 s or more, past the engine's own deadline", () => {
    for (const [name, service] of [...controls, ...engines]) {
      expect(service.stop_grace_period, name).toBeDefined()
      expect(composeSeconds(service.stop_grace_period!), name).toBeGreaterThanOrEqual(30)
    }
    // An engine answers for up to STOP_DEADLINE_MS, then flushes its clicks and closes its pool (5 s each at most).
    for (const [name, engine] of engines) expect(composeSeconds(engine.stop_grace_period!), name).toBeGreaterThanOrEqual(STOP_DEADLINE_MS / 1000 + 10)
  })

  it("pins every image it pulls by digest", () => {
    const pulled = services.filter(([, s]) => s.build === undefined)
    expect(pulled.length).toBeGreaterThanOrEqual(2)
    for (const [name, service] of pulled) expect(service.image, name).toMatch(PINNED)
  })

  it("runs NATS with a user and password from the environment, and every NATS_URL logs in with them", () => {
    const [natsName, nats] = services.find(([, s]) => /^nats:/.test(s.image ?? ""))!
    const command = commandOf(nats)
    const option = (flag: string) => command[command.indexOf(flag) + 1]
    expect(command).toContain("--user")
    expect(command).toContain("--pass")
    expect(option("--pass")).toBe(NATS_PASSWORD)
    // Written as a required variable, never as a literal password in the file.
    const written = commandOf(composeAsWritten.services[natsName])
    expect(written[written.indexOf("--pass") + 1]).toMatch(/^\$\{NATS_PASSWORD:\?[^}]+\}$/)
    expect(() => interpolateCompose(composeAsWritten, {})).toThrow(/NATS_PASSWORD/)
    for (const [name, service] of ricochetServices) {
      const natsUrl = configOf(serviceEnvironment(service)).natsUrl!
      expect(natsServer(natsUrl).credentials, name).toEqual({ user: option("--user"), pass: NATS_PASSWORD })
    }
  })
})

describe("compose.cluster.yaml (across machines, nothing shared on disk)", () => {
  const clusterAsWritten = parse(read("compose.cluster.yaml"), { merge: true }) as ComposeFile
  const cluster = interpolateCompose(clusterAsWritten, { NATS_PASSWORD })
  const all = Object.entries(cluster.services)
  const ours = all.filter(([, service]) => service.build !== undefined)
  const clusterControls = ours.filter(([, s]) => roleOf(s) === "control")
  const clusterEngines = ours.filter(([, s]) => roleOf(s) === "engine")
  const natsNodes = all.filter(([, s]) => /^nats:/.test(s.image ?? ""))
  const postgres = all.filter(([, s]) => /^postgres:/.test(s.image ?? ""))
  /** A nats-server option's value (the argument after the flag). */
  const optionOf = (service: ComposeService, flag: string) => {
    const command = commandOf(service)
    return command.includes(flag) ? command[command.indexOf(flag) + 1] : undefined
  }
  const declaredVolumes = Object.keys(cluster.volumes ?? {})

  it("runs PostgreSQL 15, three NATS nodes with JetStream, two controls and three engines of this image", () => {
    expect(postgres).toHaveLength(1)
    expect(postgres[0][1].image).toMatch(/^postgres:15(\b|-)/)
    expect(natsNodes).toHaveLength(3)
    for (const [, node] of natsNodes) expect(commandOf(node).some((arg) => arg === "--jetstream" || arg === "-js")).toBe(true)
    expect(clusterControls).toHaveLength(2)
    expect(clusterEngines).toHaveLength(3)
    expect(ours).toHaveLength(5)
  })

  it("pins the images it pulls as compose.yaml pins them", () => {
    const pinnedIn = (file: ComposeFile, kind: RegExp) => Object.values(file.services).map((s) => s.image ?? "").filter((image) => kind.test(image))
    for (const kind of [/^postgres:/, /^nats:/]) {
      const images = new Set(pinnedIn(cluster, kind))
      expect([...images]).toEqual([...new Set(pinnedIn(compose, kind))])
      for (const image of images) expect(image).toMatch(PINNED)
    }
    for (const [name, service] of all.filter(([, s]) => s.build === undefined)) expect(service.image, name).toMatch(PINNED)
  })

  it("clusters the NATS nodes: one cluster name, distinct server names, routes to every node's cluster port", () => {
    expect(new Set(natsNodes.map(([, node]) => optionOf(node, "--cluster_name"))).size).toBe(1)
    expect(optionOf(natsNodes[0][1], "--cluster_name")).toBeDefined()
    const names = natsNodes.map(([, node]) => optionOf(node, "--server_name"))
    expect(names.every((name) => name !== undefined)).toBe(true)
    expect(new Set(names).size).toBe(natsNodes.length)
    // Where each node listens for routes, as other nodes reach it: its service name and that port.
    const routeAddress = ([name, node]: readonly [string, ComposeService]) => `${name}:${new URL(optionOf(node, "--cluster")!).port}`
    const everyNode = natsNodes.map(routeAddress).sort()
    for (const [name, node] of natsNodes) {
      const routes = optionOf(node, "--routes")!.split(",").map((route) => new URL(route))
      expect(routes.map((route) => route.protocol), name).toEqual(routes.map(() => "nats:"))
      // Each node names the same routes: a node that restarts finds the others from any of them.
      expect(routes.map((route) => `${route.hostname}:${route.port}`).sort(), name).toEqual(everyNode)
    }
  })

  it("has every route, route listener and client log in with the user and NATS_PASSWORD, written as a required variable", () => {
    const clientCredentials = natsNodes.map(([, node]) => ({ user: optionOf(node, "--user"), pass: optionOf(node, "--pass") }))
    expect(new Set(clientCredentials.map((c) => `${c.user}:${c.pass}`))).toEqual(new Set([`${clientCredentials[0].user}:${NATS_PASSWORD}`]))
    for (const [name, node] of natsNodes) {
      const listener = new URL(optionOf(node, "--cluster")!)
      expect(decodeURIComponent(listener.password), name).toBe(NATS_PASSWORD)
      for (const route of optionOf(node, "--routes")!.split(",").map((r) => new URL(r))) {
        expect({ user: route.username, pass: decodeURIComponent(route.password) }, name).toEqual({ user: listener.username, pass: NATS_PASSWORD })
      }
      const written = commandOf(clusterAsWritten.services[name])
      expect(written[written.indexOf("--pass") + 1]).toMatch(/^\$\{NATS_PASSWORD:\?[^}]+\}$/)
    }
    expect(() => interpolateCompose(clusterAsWritten, {})).toThrow(/NATS_PASSWORD/)
    expect(read("compose.cluster.yaml")).not.toContain(NATS_PASSWORD)
    for (const [name, service] of ours) {
      expect(natsServer(configOf(serviceEnvironment(service)).natsUrl!).credentials, name).toEqual({ user: clientCredentials[0].user, pass: NATS_PASSWORD })
    }
  })

  describe.each(ours.map(([name, service]) => [name, service] as const))("%s", (name, service) => {
    const env = serviceEnvironment(service)

    it("sets only documented variables, in an environment loadConfig accepts, with the bucket transport at three replicas", () => {
      expect(Object.keys(env).filter(isRicochetVariable).filter((variable) => !documented.has(variable))).toEqual([])
      const config = configOf(env)
      expect(config.clicksTransport).toBe("bucket")
      expect(config.clicksReplicas).toBe(natsNodes.length)
    })

    it("uses PostgreSQL and one of the NATS nodes, and waits for both", () => {
      const config = configOf(env)
      expect(new URL(config.databaseUrl!).hostname).toBe(postgres[0][0])
      const node = new URL(config.natsUrl!).hostname
      expect(natsNodes.map(([n]) => n)).toContain(node)
      expect(dependencies(service)).toMatchObject({ [postgres[0][0]]: "service_healthy", [node]: "service_healthy" })
    })

    it("keeps its data directory, and the clicks and spool directories under it, on a volume of its own", () => {
      const config = configOf(env)
      const own = mounts(service).find((m) => m.target === config.dataDir)
      expect(own, "a volume at RICOCHET_DATA_DIR").toBeDefined()
      expect(declaredVolumes).toContain(own!.source)
      for (const dir of [config.clicksDir, config.spoolDir]) expect(dir.startsWith(`${config.dataDir}/`), dir).toBe(true)
      const elsewhere = all.filter(([other]) => other !== name).flatMap(([, other]) => mounts(other).map((m) => m.source))
      expect(elsewhere).not.toContain(own!.source)
    })

    it("publishes the ports it listens on (operator ports on loopback only) and has the image's health check", () => {
      const config = configOf(env)
      const engine = roleOf(service) === "engine"
      const listens = engine ? [config.enginePort, config.engineAdminPort] : [config.apiPort, config.controlAdminPort]
      expect(publishedPorts(service).map((p) => p.container).sort()).toEqual(listens.sort())
      const operator = (service.ports ?? []).filter((port) => String(port).endsWith(`:${engine ? config.engineAdminPort : config.controlAdminPort}`))
      expect(operator).toHaveLength(1)
      expect(String(operator[0])).toMatch(/^127\.0\.0\.1:/)
      expect(service.healthcheck, "the image's check, which probes its role").toBeUndefined()
      expect(probesFor(roleOf(service) as "control" | "engine", { ...imageEnvironment, ...env })).toHaveLength(1)
    })

    it("gives itself time to stop", () => {
      expect(composeSeconds(service.stop_grace_period ?? "0s")).toBeGreaterThanOrEqual(roleOf(service) === "engine" ? STOP_DEADLINE_MS / 1000 + 10 : 30)
    })
  })

  it("shares no volume between services: no clicks volume, nothing a second machine would need", () => {
    const sources = all.flatMap(([, service]) => mounts(service).map((m) => m.source))
    expect(sources.length).toBe(all.length)
    expect(new Set(sources).size).toBe(sources.length)
    expect([...sources].sort()).toEqual([...declaredVolumes].sort())
    for (const [name, service] of all) expect(service.healthcheck?.disable ?? false, name).toBe(false)
  })

  it("gives engines distinct ids, and has them wait for a control that migrates the database", () => {
    const ids = clusterEngines.map(([, s]) => configOf(serviceEnvironment(s)).engineId)
    expect(ids.every((id) => id !== undefined)).toBe(true)
    expect(new Set(ids).size).toBe(clusterEngines.length)
    const controlNames = clusterControls.map(([name]) => name)
    for (const [name, engine] of clusterEngines) {
      expect(Object.entries(dependencies(engine)).some(([dep, condition]) => controlNames.includes(dep) && condition === "service_healthy"), name).toBe(true)
    }
  })

  it("publishes each host port once, and spreads the processes over the NATS nodes", () => {
    const hostPorts = all.flatMap(([, s]) => publishedPorts(s).map((p) => p.host))
    expect(new Set(hostPorts).size).toBe(hostPorts.length)
    const nodesUsed = new Set(ours.map(([, s]) => new URL(configOf(serviceEnvironment(s)).natsUrl!).hostname))
    expect(nodesUsed.size).toBe(natsNodes.length)
  })
})

describe("Dockerfile", () => {
  /** The ABI (process.versions.modules) of each Node major the uWebSockets.js binaries are named by. */
  const NODE_ABI: Record<string, string> = { "16": "93", "18": "108", "20": "115", "22": "127", "24": "137" }

  it("builds on the Node major package.json's engines asks for, Debian bookworm slim, pinned by digest, in more than one stage", () => {
    const engines = JSON.parse(read("package.json")).engines.node as string
    const major = /^>=(\d+)\.\d+ <(\d+)$/.exec(engines)
    expect(major, engines).not.toBeNull()
    expect(Number(major![2])).toBe(Number(major![1]) + 1)
    expect(stages.length).toBeGreaterThanOrEqual(2)
    for (const stage of stages) {
      expect(stage.image).toMatch(PINNED)
      expect(stage.image.split("@")[0]).toBe(`node:${major![1]}-bookworm-slim`)
    }
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

  it("checks health with cli/healthcheck.mjs, which follows the role of the command it runs", () => {
    const check = imageHealthcheck()
    expect(execForm(check.command)).toEqual(["node", "cli/healthcheck.mjs"])
    expect(existsSync(path.join(root, "cli/healthcheck.mjs"))).toBe(true)
    expect(copySourcesOf(finalStage)).toContain("cli/healthcheck.mjs")
    // Past the start (migrations, a cold embedded database) before failures count.
    expect(check.options["--start-period"]).toBeDefined()
    // The default command is npm start's process: control and engine.
    const entrypoint = execForm(instructionsOf("ENTRYPOINT").at(-1)!.args)
    const command = execForm(instructionsOf("CMD").at(-1)!.args)
    expect(healthcheckRoleOf([...entrypoint, ...command])).toBe("all")
    expect(healthcheckRoleOf([...entrypoint, "cli/ricochet.ts", "workspace", "create"])).toBeUndefined()
  })

  it("keeps the data directory on a volume, made and owned by the server's user before it is declared", () => {
    const dataDir = imageEnvironment.RICOCHET_DATA_DIR
    expect(dataDir).toBeDefined()
    const volumes = instructionsOf("VOLUME").flatMap((i) => (i.args.startsWith("[") ? execForm(i.args) : i.args.split(/\s+/)))
    expect(volumes).toContain(dataDir)
    const keywords = finalStage.instructions.map((i) => i.keyword)
    const owned = finalStage.instructions.findIndex((i) => i.keyword === "RUN" && i.args.includes(`chown -R node:node ${dataDir}`))
    expect(owned).toBeGreaterThanOrEqual(0)
    expect(owned).toBeLessThan(keywords.indexOf("VOLUME"))
    expect(instructionsOf("USER").at(-1)?.args).toBe("node")
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

  it("copies into the build stage every file or folder the bundled programs import (a root file such as config.ts too)", () => {
    const builder = stages.find((stage) => stage.instructions.some((i) => i.keyword === "RUN" && i.args.includes("scripts/build.ts")))!
    const copied = copySourcesOf(builder)
    // The programs' sources, followed through their relative imports.
    const seen = new Set<string>()
    const follow = (file: string) => {
      if (seen.has(file) || !existsSync(file) || !/\.(ts|mts|mjs)$/.test(file)) return
      seen.add(file)
      for (const match of readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\s+(?:[^"'`;]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/gm)) {
        follow(path.resolve(path.dirname(file), match[1]))
      }
    }
    for (const { source } of PROCESSES) follow(path.join(root, source))
    const tops = new Set([...seen].map((file) => path.relative(root, file).split(path.sep)[0]))
    expect(tops).toContain("config.ts")
    expect([...tops].filter((top) => !copied.includes(top)), JSON.stringify(copied)).toEqual([])
  })

  it("copies sources that exist and that .dockerignore lets through, and keeps the rest out", () => {
    const patterns = dockerignorePatterns(read(".dockerignore"))
    const sources = stages.flatMap((stage) => stage.instructions.filter((i) => i.keyword === "COPY").flatMap((i) => copySources(i.args)))
    expect(sources).toEqual(expect.arrayContaining(["package.json", "package-lock.json", "main.ts"]))
    for (const source of sources) {
      expect(existsSync(path.join(root, source)), source).toBe(true)
      expect(ignoredByDocker(patterns, source), source).toBe(false)
    }
    for (const kept of ["node_modules", "data", "bench/results", "test", ".git", "server.log", ".env"]) {
      expect(ignoredByDocker(patterns, kept), kept).toBe(true)
    }
  })
})
