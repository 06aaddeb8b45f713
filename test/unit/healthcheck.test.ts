import { describe, expect, it } from "vitest"
import { probesFor, roleOf } from "../../cli/healthcheck.mjs"

/**
 * The container's health check (cli/healthcheck.mjs): the role its server process runs, read
 * from that process's command line, and the readiness URLs of that role under its settings.
 */
describe("roleOf", () => {
  it.each<readonly [ReadonlyArray<string>, ReturnType<typeof roleOf>]>([
    [["node", "--import", "tsx", "main.ts"], "all"],
    [["node", "--import", "tsx", "/app/main.ts"], "all"],
    [["node", "--import", "tsx", "cli/ricochet.ts", "control"], "control"],
    [["node", "--import", "tsx", "cli/ricochet.ts", "engine"], "engine"],
    [["node", "/app/dist/cli/ricochet.js", "engine"], "engine"],
    [["node", "--import", "tsx", "cli/ricochet.ts", "workspace", "create", "--name", "x"], undefined],
    [["node", "--import", "tsx", "cli/ricochet.ts"], undefined],
    [["sh"], undefined]
  ])("%j: %s", (argv, role) => {
    expect(roleOf(argv)).toBe(role)
  })
})

describe("probesFor", () => {
  it.each<readonly [string, "control" | "engine" | "all", Record<string, string>, ReadonlyArray<string>]>([
    ["control, defaults", "control", {}, ["http://127.0.0.1:3000/readyz"]],
    ["engine, defaults: its operator port", "engine", {}, ["http://127.0.0.1:9464/readyz"]],
    ["npm start: both", "all", {}, ["http://127.0.0.1:3000/readyz", "http://127.0.0.1:9464/readyz"]],
    ["ports set", "all", { RICOCHET_API_PORT: "4000", RICOCHET_ENGINE_ADMIN_PORT: "9500" }, ["http://127.0.0.1:4000/readyz", "http://127.0.0.1:9500/readyz"]],
    ["bound to one address", "control", { RICOCHET_LISTEN_HOST: "10.1.2.3" }, ["http://10.1.2.3:3000/readyz"]],
    ["every IPv6 address", "control", { RICOCHET_LISTEN_HOST: "::" }, ["http://127.0.0.1:3000/readyz"]],
    ["one IPv6 address", "engine", { RICOCHET_ENGINE_ADMIN_HOST: "fd00::5" }, ["http://[fd00::5]:9464/readyz"]],
    ["operator port on its own interface", "engine", { RICOCHET_LISTEN_HOST: "0.0.0.0", RICOCHET_ENGINE_ADMIN_HOST: "10.0.0.7" }, ["http://10.0.0.7:9464/readyz"]],
    ["operator host follows the listen host", "engine", { RICOCHET_LISTEN_HOST: "10.1.2.3" }, ["http://10.1.2.3:9464/readyz"]]
  ])("%s", (_case, role, env, urls) => {
    expect(probesFor(role, env)).toEqual(urls)
  })
})
