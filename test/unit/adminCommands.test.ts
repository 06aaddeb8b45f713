import { Effect, Schema } from "effect"
import { describe, expect, it, vi } from "vitest"
import { answerAdminRequest } from "../../control/admin/adminChannel.ts"
import { KeyUnknown } from "../../control/admin/runAdminCommand.ts"
import { AdminCommand, AdminCommandJson } from "../../shared/admin/commands.ts"

const decode = Schema.decodeUnknownResult(AdminCommandJson)

describe("admin channel commands (shared/admin/commands.ts)", () => {
  it.each([
    [{ command: "workspace.create", name: "Acme", plan: "pro" }],
    [{ command: "workspace.list" }],
    [{ command: "workspace.setPlan", workspaceId: "ws_1", plan: "basic" }],
    [{ command: "key.create", workspaceId: "ws_1", role: "member" }],
    [{ command: "key.list", workspaceId: "ws_1" }],
    [{ command: "key.revoke", id: "key_1" }],
    [{ command: "user.create", email: "a@b.c", workspaceId: "ws_1", role: "admin" }],
    [{ command: "user.create", email: "a@b.c", workspaceId: "ws_1", role: "admin", password: "long enough" }],
    [{ command: "user.resetPassword", email: "a@b.c" }],
    [{ command: "user.list" }],
    [{ command: "user.list", workspaceId: "ws_1" }]
  ])("decodes %j as sent", (command) => {
    const result = decode(JSON.stringify(command))
    expect(result._tag).toBe("Success")
    // What the CLI encodes is what control decodes.
    expect(Schema.encodeSync(AdminCommandJson)(command as AdminCommand)).toBe(JSON.stringify(command))
  })

  it.each([
    ["not JSON", "{command"],
    ["no command", JSON.stringify({ name: "x" })],
    ["an unknown command", JSON.stringify({ command: "workspace.delete", id: "ws_1" })],
    ["a missing field", JSON.stringify({ command: "key.revoke" })],
    ["a field of the wrong type", JSON.stringify({ command: "workspace.create", name: 7, plan: "pro" })],
    ["an array", "[]"]
  ])("refuses %s", (_what, body) => {
    expect(decode(body)._tag).toBe("Failure")
  })
})

describe("answerAdminRequest", () => {
  const ok = () => Effect.succeed({ done: true })

  it("answers 200 with the result of a command that decodes", async () => {
    const run = vi.fn(ok)
    expect(await answerAdminRequest(run, JSON.stringify({ command: "workspace.list" }))).toEqual({ status: 200, body: { done: true } })
    expect(run).toHaveBeenCalledWith({ command: "workspace.list" })
  })

  it("answers 400 without running anything for what is not a command", async () => {
    const run = vi.fn(ok)
    const answer = await answerAdminRequest(run, JSON.stringify({ command: "drop.everything" }))
    expect(answer.status).toBe(400)
    expect((answer.body as { error: string }).error).toMatch(/^not an admin command: /)
    expect(run).not.toHaveBeenCalled()
  })

  it("answers 400 with the refusal's words", async () => {
    const answer = await answerAdminRequest(() => Effect.fail(new KeyUnknown({ message: "No live key with id key_1" })), JSON.stringify({ command: "key.revoke", id: "key_1" }))
    expect(answer).toEqual({ status: 400, body: { error: "No live key with id key_1" } })
  })

  it("answers 500 for a defect, and logs it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {})
    const answer = await answerAdminRequest(() => Effect.die(new Error("bug")), JSON.stringify({ command: "workspace.list" }))
    expect(answer).toEqual({ status: 500, body: { error: "internal error; see the server log" } })
    expect(logged).toHaveBeenCalledTimes(1)
    logged.mockRestore()
  })
})
