import { Config, ConfigProvider, Effect } from "effect"

/**
 * Readers for the deployment files and the configuration reference, as test/unit/compose.test.ts
 * compares them: the tables of docs/configuration.md, the Dockerfile, .dockerignore and the
 * services of compose.yaml. Each reads only the syntax those files use, and throws on anything
 * else rather than let a check pass on nothing.
 */

/** A row of a configuration table: `| \`VAR\` | default | meaning |`. */
export interface ConfigurationRow {
  readonly variable: string
  readonly default: string
  readonly meaning: string
}

const CONFIGURATION_HEADER = /^\| Variable \| Default \| Meaning \|$/

/**
 * The rows of every `| Variable | Default | Meaning |` table of a document (docs/configuration.md
 * groups the variables in several). A row of such a table that is not `| \`NAME\` | … | … |`
 * throws: a variable written another way would otherwise drop out of every check.
 */
export const configurationTable = (doc: string): Array<ConfigurationRow> => {
  const lines = doc.split("\n").map((line) => line.trim())
  const rows: Array<ConfigurationRow> = []
  let tables = 0
  for (let i = 0; i < lines.length; i++) {
    if (!CONFIGURATION_HEADER.test(lines[i])) continue
    tables++
    for (let j = i + 2; j < lines.length && lines[j].startsWith("|"); j++) {
      const row = /^\| `([A-Z][A-Z0-9_]*)` \| (.*?) \| (.*) \|$/.exec(lines[j])
      if (row === null) throw new Error(`configuration table row not understood: ${lines[j]}`)
      rows.push({ variable: row[1], default: row[2].trim(), meaning: row[3].trim() })
    }
  }
  if (tables === 0) throw new Error("no '| Variable | Default | Meaning |' table")
  return rows
}

/**
 * The names a Config reads (loadConfig's: every setting's declaration), found by running it
 * against a provider that records each name asked for and answers that none is set, so every
 * setting takes its default and every declaration is reached.
 */
export const variablesReadBy = (config: Config.Config<unknown>): Array<string> => {
  const read = new Set<string>()
  const recording = ConfigProvider.make((path) => {
    read.add(path.join("_"))
    return Effect.succeed(undefined)
  })
  Effect.runSync(config.parse(recording))
  return [...read]
}

export interface DockerInstruction {
  /** Upper case: FROM, COPY, RUN, … */
  readonly keyword: string
  readonly args: string
}

export interface DockerStage {
  readonly name: string | undefined
  /** The base image, build arguments substituted. */
  readonly image: string
  readonly instructions: ReadonlyArray<DockerInstruction>
}

/** Instructions of a Dockerfile: comments dropped, `\` continuations joined. */
export const dockerInstructions = (text: string): Array<DockerInstruction> => {
  const out: Array<DockerInstruction> = []
  let pending = ""
  for (const raw of text.split("\n")) {
    const line = raw.trim()
    if (pending === "" && (line === "" || line.startsWith("#"))) continue
    if (pending !== "" && line.startsWith("#")) continue
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `
      continue
    }
    const whole = (pending + line).trim()
    pending = ""
    const match = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(whole)
    if (match === null) throw new Error(`Dockerfile line not understood: ${whole}`)
    out.push({ keyword: match[1].toUpperCase(), args: match[2].trim() })
  }
  if (pending !== "") throw new Error("Dockerfile ends inside a continued line")
  return out
}

/** The build stages, with the `ARG`s declared before the first FROM substituted into it. */
export const dockerStages = (text: string): Array<DockerStage> => {
  const args = new Map<string, string>()
  const stages: Array<{ name: string | undefined; image: string; instructions: Array<DockerInstruction> }> = []
  for (const instruction of dockerInstructions(text)) {
    if (instruction.keyword === "FROM") {
      const [image, as, name] = instruction.args.split(/\s+/)
      const resolved = image.replace(/\$\{(\w+)\}|\$(\w+)/g, (_all, a: string | undefined, b: string | undefined) => {
        const value = args.get((a ?? b)!)
        if (value === undefined) throw new Error(`FROM uses an undeclared build argument: ${image}`)
        return value
      })
      stages.push({ name: as?.toUpperCase() === "AS" ? name : undefined, image: resolved, instructions: [] })
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG") throw new Error(`${instruction.keyword} before the first FROM`)
      const [name, value] = instruction.args.split("=", 2)
      if (value !== undefined) args.set(name, value)
    } else {
      stages[stages.length - 1].instructions.push(instruction)
    }
  }
  return stages
}

/** An exec-form argument list (`["node", "-e", "…"]`), as Docker reads it: JSON. */
export const execForm = (args: string): Array<string> => {
  const parsed: unknown = JSON.parse(args)
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === "string")) throw new Error(`not an exec form: ${args}`)
  return parsed
}

/** `ENV A=1 B=2` (the only ENV form the Dockerfile uses) as a map. */
export const envInstruction = (args: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of args.split(/\s+/)) {
    const eq = pair.indexOf("=")
    if (eq <= 0) throw new Error(`ENV entry is not NAME=value: ${pair}`)
    out[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return out
}

/** Sources of a `COPY` from the build context (flags dropped); [] for a copy from another stage. */
export const copySources = (args: string): Array<string> => {
  const words = args.split(/\s+/)
  if (words.some((w) => w.startsWith("--from="))) return []
  const paths = words.filter((w) => !w.startsWith("--"))
  return paths.slice(0, -1)
}

/**
 * Whether .dockerignore keeps `file` out of the build context. The patterns this project uses
 * are names of top-level entries and `*.suffix` globs; a later `!pattern` re-includes.
 */
export const ignoredByDocker = (patterns: ReadonlyArray<string>, file: string): boolean => {
  const normalized = file.replace(/^\.\//, "").replace(/\/$/, "")
  let ignored = false
  for (const raw of patterns) {
    const negated = raw.startsWith("!")
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\//, "").replace(/\/$/, "")
    const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}(/.*)?$`)
    if (regex.test(normalized)) ignored = !negated
  }
  return ignored
}

export const dockerignorePatterns = (text: string): Array<string> =>
  text.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"))

/** A compose service, as far as these checks read it. */
export interface ComposeService {
  readonly image?: string
  readonly build?: unknown
  readonly command?: ReadonlyArray<string> | string
  readonly environment?: Readonly<Record<string, string | number | boolean | null>> | ReadonlyArray<string>
  readonly ports?: ReadonlyArray<string | number | { readonly target: number; readonly published?: string | number }>
  readonly volumes?: ReadonlyArray<string | { readonly type?: string; readonly source?: string; readonly target: string }>
  readonly healthcheck?: { readonly test?: ReadonlyArray<string> | string; readonly disable?: boolean }
  readonly stop_grace_period?: string
  readonly depends_on?: ReadonlyArray<string> | Readonly<Record<string, { readonly condition?: string }>>
}

/** A service's environment as the process sees it (list or map form; values as strings). */
export const serviceEnvironment = (service: ComposeService): Record<string, string> => {
  const env = service.environment
  if (env === undefined) return {}
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry: string) => {
      const eq = entry.indexOf("=")
      return eq < 0 ? [entry, ""] : [entry.slice(0, eq), entry.slice(eq + 1)]
    }))
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null ? "" : String(value)]))
}

export interface PublishedPort {
  readonly host: number
  readonly container: number
}

/** `HOST:CONTAINER`, `IP:HOST:CONTAINER` (with an optional `/tcp`) or the long syntax. */
export const publishedPorts = (service: ComposeService): Array<PublishedPort> =>
  (service.ports ?? []).map((port) => {
    if (typeof port === "object") {
      if (port.published === undefined) throw new Error(`port ${port.target} is not published`)
      return { host: Number(port.published), container: Number(port.target) }
    }
    const parts = String(port).replace(/\/(tcp|udp)$/, "").split(":")
    if (parts.length < 2) throw new Error(`port ${port} names no host port`)
    const [host, container] = parts.slice(-2).map(Number)
    if (!Number.isInteger(host) || !Number.isInteger(container)) throw new Error(`port ${port} is not HOST:CONTAINER`)
    return { host, container }
  })

export interface Mount {
  readonly source: string
  readonly target: string
}

/** `SOURCE:TARGET[:MODE]` or the long syntax. */
export const mounts = (service: ComposeService): Array<Mount> =>
  (service.volumes ?? []).map((volume) => {
    if (typeof volume === "object") return { source: volume.source ?? "", target: volume.target }
    const [source, target] = volume.split(":")
    if (target === undefined) throw new Error(`volume ${volume} has no target`)
    return { source, target }
  })

/** The services a service waits for, with the condition of each. */
export const dependencies = (service: ComposeService): Record<string, string> => {
  const deps = service.depends_on
  if (deps === undefined) return {}
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((name: string) => [name, "service_started"]))
  return Object.fromEntries(Object.entries(deps).map(([name, value]) => [name, value.condition ?? "service_started"]))
}

export const commandOf = (service: ComposeService): Array<string> =>
  service.command === undefined ? [] : typeof service.command === "string" ? service.command.split(/\s+/) : [...service.command]

/**
 * compose.yaml's values with the variables substituted as `docker compose` does (`${VAR}`,
 * `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `$VAR`, `$$`), throwing
 * for a required one that is unset. Applied to the parsed file, as compose does (comments are
 * not interpolated).
 */
export const interpolateCompose = <T>(value: T, env: Readonly<Record<string, string | undefined>>): T => {
  if (typeof value === "string") {
    return value.replace(/\$\$|\$\{([A-Za-z_]\w*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g, (all, name: string | undefined, colon: string | undefined, op: string | undefined, arg: string | undefined, bare: string | undefined) => {
      if (all === "$$") return "$"
      if (bare !== undefined) return env[bare] ?? ""
      const set = env[name!]
      const missing = set === undefined || (colon === ":" && set === "")
      if (op === undefined) return set ?? ""
      if (op === "-") return missing ? arg! : set!
      if (missing) throw new Error(`compose: required variable ${name} is missing a value: ${arg}`)
      return set!
    }) as T
  }
  if (Array.isArray(value)) return value.map((item) => interpolateCompose(item, env)) as T
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateCompose(item, env)])) as T
  }
  return value
}

/** A compose duration (`45s`, `1m30s`, `2m`) in seconds. */
export const composeSeconds = (duration: string): number => {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|m|s|ms)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== duration) throw new Error(`not a compose duration: ${duration}`)
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001 } as const
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0)
}
