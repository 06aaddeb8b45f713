import { createServer, type Server } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { portProblem } from "../../shared/startup/ports.ts"
import { reachableHost, startBlock } from "../../shared/startup/startBlock.ts"

describe("portProblem", () => {
  const servers: Array<Server> = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
  })
  const taken = () =>
    new Promise<number>((resolve) => {
      const server = createServer()
      servers.push(server)
      server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
    })

  it("names the taken port and the variable that moves it", async () => {
    const port = await taken()
    const problem = await portProblem("127.0.0.1", [
      { port: 0, variable: "RICOCHET_ENGINE_PORT", what: "engine" },
      { port, variable: "RICOCHET_API_PORT", what: "API" }
    ])
    expect(problem).toBe(`ricochet: port ${port} (API) is already in use on 127.0.0.1; set RICOCHET_API_PORT to another port`)
    expect(problem).not.toContain("\n")
  })

  it("checks an operator port on its own host, not the listen host", async () => {
    const port = await taken()
    // Free on 127.0.0.2 (the listen host here), taken on 127.0.0.1 where the operator port binds.
    const problem = await portProblem("127.0.0.2", [{ port, host: "127.0.0.1", variable: "RICOCHET_CONTROL_ADMIN_PORT", what: "control health and metrics" }])
    expect(problem).toBe(`ricochet: port ${port} (control health and metrics) is already in use on 127.0.0.1; set RICOCHET_CONTROL_ADMIN_PORT to another port`)
  })

  it("answers nothing when every port is free (and leaves them free)", async () => {
    const port = await taken()
    await new Promise((r) => servers.pop()!.close(r))
    expect(await portProblem("127.0.0.1", [{ port, variable: "RICOCHET_API_PORT", what: "API" }])).toBeUndefined()
    expect(await portProblem("127.0.0.1", [{ port, variable: "RICOCHET_API_PORT", what: "API" }])).toBeUndefined()
  })
})

describe("startBlock", () => {
  it("frames the title and every line given, in order", () => {
    const block = startBlock("Ricochet is running", ["API: http://localhost:3000/v1", "Key: rico_x"])
    const lines = block.split("\n")
    expect(lines.filter((l) => l.startsWith("─")).length).toBe(3)
    expect(lines.indexOf(" API: http://localhost:3000/v1")).toBeLessThan(lines.indexOf(" Key: rico_x"))
    expect(lines).toContain(" Ricochet is running")
  })

  it.each([["0.0.0.0", "localhost"], ["::", "localhost"], ["127.0.0.1", "127.0.0.1"], ["::1", "[::1]"]])("%s is reached as %s", (listen, host) => {
    expect(reachableHost(listen)).toBe(host)
  })
})
