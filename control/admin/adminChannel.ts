import { randomBytes, timingSafeEqual } from "node:crypto"
import { mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import type { Sql } from "postgres"
import { PLANS, type Plan } from "../plans/plans.ts"
import { listKeys, revokeKey } from "../keys/keys.ts"
import { createUser, listUsers, listWorkspaces, PeopleError, requireWorkspace, resetPassword, setPlan } from "../people/users.ts"
import { createKey, createWorkspace, type Role, UnknownWorkspaceError } from "../workspaces/provisioning.ts"

/**
 * The embedded database takes one connection, held by the running server; the CLI provisions
 * through this channel instead. It listens on loopback only and demands a token that is written,
 * readable by the owner only, into the data directory: whoever can read the data can already do
 * anything with it.
 */
const channelFile = (dataDir: string) => path.join(dataDir, "run", "admin.json")

interface ChannelInfo {
  readonly port: number
  readonly token: string
}

export type AdminCommand =
  | { readonly command: "workspace.create"; readonly name: string; readonly plan: Plan }
  | { readonly command: "key.create"; readonly workspaceId: string; readonly role: Role }
  | { readonly command: "key.list"; readonly workspaceId: string }
  | { readonly command: "key.revoke"; readonly id: string }
  | { readonly command: "user.create"; readonly email: string; readonly workspaceId: string; readonly role: Role; readonly password?: string }
  | { readonly command: "user.resetPassword"; readonly email: string; readonly password?: string }
  | { readonly command: "user.list"; readonly workspaceId?: string }
  | { readonly command: "workspace.list" }
  | { readonly command: "workspace.setPlan"; readonly workspaceId: string; readonly plan: string }

export class AdminCommandError extends Error {}

/** Runs one provisioning command; used by the channel and by the CLI when it owns the database. */
export const runAdminCommand = async (sql: Sql, shortDomain: string, command: AdminCommand): Promise<unknown> => {
  try {
    return await runCommand(sql, shortDomain, command)
  } catch (error) {
    if (error instanceof PeopleError) throw new AdminCommandError(error.message)
    throw error
  }
}

const runCommand = async (sql: Sql, shortDomain: string, command: AdminCommand): Promise<unknown> => {
  switch (command.command) {
    case "key.list":
      await requireWorkspace(sql, command.workspaceId)
      return { data: await listKeys(sql, command.workspaceId) }
    case "key.revoke":
      if (!(await revokeKey(sql, command.id))) throw new AdminCommandError(`No live key with id ${command.id}`)
      return { id: command.id, revoked: true }
    case "user.create":
      return createUser(sql, command)
    case "user.resetPassword":
      return resetPassword(sql, command)
    case "user.list":
      return { data: await listUsers(sql, command.workspaceId) }
    case "workspace.list":
      return { data: await listWorkspaces(sql) }
    case "workspace.setPlan":
      return setPlan(sql, command.workspaceId, command.plan)
    case "workspace.create":
      if (typeof command.name !== "string" || command.name.trim() === "" || command.name.length > 100) {
        throw new AdminCommandError("--name must be 1 to 100 characters")
      }
      if (!PLANS.includes(command.plan)) throw new AdminCommandError(`--plan must be one of ${PLANS.join(", ")}`)
      return createWorkspace(sql, { name: command.name.trim(), plan: command.plan, shortDomain })
    case "key.create":
      if (command.role !== "admin" && command.role !== "member") throw new AdminCommandError("--role must be admin or member")
      try {
        return await createKey(sql, { workspaceId: command.workspaceId, role: command.role })
      } catch (error) {
        if (error instanceof UnknownWorkspaceError) throw new AdminCommandError(error.message)
        throw error
      }
  }
}

export const startAdminChannel = async (dataDir: string, sql: Sql, shortDomain: string): Promise<() => Promise<void>> => {
  const token = randomBytes(32).toString("hex")
  const expected = Buffer.from(`Bearer ${token}`)
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", async () => {
      const given = Buffer.from(req.headers.authorization ?? "")
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(body))
      }
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply(401, { error: "bad token" })
      try {
        const command = JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdminCommand
        reply(200, await runAdminCommand(sql, shortDomain, command))
      } catch (error) {
        if (error instanceof AdminCommandError || error instanceof SyntaxError) return reply(400, { error: error.message })
        console.error("admin command failed", error)
        reply(500, { error: "internal error; see the server log" })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const file = channelFile(dataDir)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify({ port: (server.address() as AddressInfo).port, token } satisfies ChannelInfo), { mode: 0o600 })
  return async () => {
    await rm(file, { force: true })
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * Sends a command to a running embedded server. Undefined when no server is running there (no
 * channel file, or nobody answering), so the caller can open the database itself.
 */
export const sendAdminCommand = async (dataDir: string, command: AdminCommand): Promise<unknown | undefined> => {
  let info: ChannelInfo
  try {
    info = JSON.parse(await readFile(channelFile(dataDir), "utf8"))
  } catch {
    return undefined
  }
  const body = JSON.stringify(command)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: info.port, method: "POST", path: "/", headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" } },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          if (res.statusCode === 200) resolve(parsed)
          else reject(new AdminCommandError(parsed.error ?? `admin channel answered ${res.statusCode}`))
        })
      }
    )
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNREFUSED" ? resolve(undefined) : reject(error)))
    req.end(body)
  })
}
