import { Cause, Effect, Exit, Result, Schema } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { AdminCommandJson, AdminFailureJson } from "../../shared/admin/commands.ts"
import type { AdminCommand } from "../../shared/admin/commands.ts"
import { scrub } from "../../shared/logging/logLine.ts"
import { runAdminCommand } from "./runAdminCommand.ts"

export type { AdminCommand }

/**
 * The embedded database takes one connection, held by the running server; the CLI provisions
 * through this channel instead. It listens on loopback only and demands a token that is written,
 * readable by the owner only, into the data directory: whoever can read the data can already do
 * anything with it. Both ends decode what they receive (shared/admin/commands.ts).
 */
const channelFile = (dataDir: string) => path.join(dataDir, "run", "admin.json")

const ChannelInfo = Schema.fromJsonString(Schema.Struct({ port: Schema.Int, token: Schema.String }))

/** What a command came to: its result, or the refusal the CLI prints. */
export type AdminOutcome = { readonly result: unknown } | { readonly refused: string }

/** The channel's answer to one request body: 200 and the result, 400 for what is not a command or is refused, 500 for a bug (logged). */
export const answerAdminRequest = async (run: (command: AdminCommand) => Effect.Effect<unknown, { readonly message: string }>, body: string) => {
  const decoded = Schema.decodeUnknownResult(AdminCommandJson)(body)
  if (Result.isFailure(decoded)) return { status: 400, body: { error: `not an admin command: ${decoded.failure.message}` } }
  const exit = await Effect.runPromiseExit(run(decoded.success))
  if (Exit.isSuccess(exit)) return { status: 200, body: exit.value }
  const refusal = Cause.findErrorOption(exit.cause)
  if (refusal._tag === "Some") return { status: 400, body: { error: refusal.value.message } }
  console.error("admin command failed", scrub(Cause.pretty(exit.cause)))
  return { status: 500, body: { error: "internal error; see the server log" } }
}

export const startAdminChannel = async (
  dataDir: string,
  run: (command: AdminCommand) => Effect.Effect<unknown, { readonly message: string }>
): Promise<() => Promise<void>> => {
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
      const answer = await answerAdminRequest(run, Buffer.concat(chunks).toString("utf8"))
      reply(answer.status, answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const file = channelFile(dataDir)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify({ port: (server.address() as AddressInfo).port, token }), { mode: 0o600 })
  return async () => {
    await rm(file, { force: true })
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * Sends a command to a running embedded server. Undefined when no server is running there (no
 * channel file, or nobody answering), so the caller can open the database itself.
 */
export const sendAdminCommand = async (dataDir: string, command: AdminCommand): Promise<AdminOutcome | undefined> => {
  const info = Schema.decodeUnknownResult(ChannelInfo)(await readFile(channelFile(dataDir), "utf8").catch(() => ""))
  if (Result.isFailure(info)) return undefined
  const { port, token } = info.success
  const body = Schema.encodeSync(AdminCommandJson)(command)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: "POST", path: "/", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          if (res.statusCode === 200) {
            const parsed = Result.try(() => JSON.parse(text) as unknown)
            return Result.isSuccess(parsed) ? resolve({ result: parsed.success }) : resolve({ refused: "the admin channel answered something that is not JSON" })
          }
          const failure = Schema.decodeUnknownResult(AdminFailureJson)(text)
          resolve({ refused: Result.isSuccess(failure) ? failure.success.error : `admin channel answered ${res.statusCode}` })
        })
      }
    )
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNREFUSED" ? resolve(undefined) : reject(error)))
    req.end(body)
  })
}
