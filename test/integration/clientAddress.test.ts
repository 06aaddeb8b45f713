import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ControlHandle,
  createTestDatabase,
  removeDir,
  roomInThisMinute,
  runCli,
  startControl,
  tempDir
} from "../support/processes.ts"

/**
 * Handlers see the request as it arrived: signing in is limited per account and per client
 * address, and the address is the client's own (or X-Forwarded-For's behind a trusted proxy),
 * whatever the body's content type. When the request-input step rebuilt the request, every
 * client read as "unknown": five wrong passwords from anywhere locked every user out.
 */

const ADMIN_EMAIL = "owner@example.test"
const VICTIM_EMAIL = "victim@example.test"

interface Answer {
  readonly status: number
  readonly setCookie: boolean
}

type BodyKind = "json" | "form" | "multipart"

const encode = (kind: BodyKind, fields: Record<string, string>): { type: string; body: Buffer } => {
  if (kind === "json") return { type: "application/json", body: Buffer.from(JSON.stringify(fields)) }
  if (kind === "form") return { type: "application/x-www-form-urlencoded", body: Buffer.from(new URLSearchParams(fields).toString()) }
  const boundary = "----ricochet-test-boundary"
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.from(`${parts.join("")}--${boundary}--\r\n`) }
}

/** POST /v1/sessions from a chosen loopback address (all of 127.0.0.0/8 is this machine). */
const signInFrom = (baseUrl: string, from: string, email: string, password: string, options: { kind?: BodyKind; forwardedFor?: string } = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL("/v1/sessions", baseUrl)
    const { type, body } = encode(options.kind ?? "json", { email, password })
    const headers: Record<string, string | number> = { "content-type": type, "content-length": body.length }
    if (options.forwardedFor !== undefined) headers["x-forwarded-for"] = options.forwardedFor
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers, localAddress: from }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode!, setCookie: res.headers["set-cookie"] !== undefined }))
    })
    req.on("error", reject)
    req.end(body)
  })

const passwordsOf = async (ctl: ControlHandle) => {
  const admin = /one-time password \(shown once\): (\S+)/.exec(ctl.output())![1]
  const workspaceId = /Created workspace "[^"]*" \((ws_\w+), plan pro\)/.exec(ctl.output())![1]
  const created = await runCli(["user", "create", "--email", VICTIM_EMAIL, "--workspace", workspaceId, "--role", "member", "--json"], ctl.env)
  expect(created.code, created.output).toBe(0)
  const victim = JSON.parse(created.output.trim().split("\n").pop()!).password as string
  return { admin, victim }
}

describe("sign-in limits see the client's own address (embedded default, no proxy)", () => {
  let ctl: ControlHandle
  let dir: string
  let passwords: { admin: string; victim: string }

  beforeAll(async () => {
    dir = await tempDir()
    ctl = await startControl({ RICOCHET_DATA_DIR: dir, DATABASE_URL: undefined, NATS_URL: undefined, RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL }, true)
    passwords = await passwordsOf(ctl)
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    if (dir) await removeDir(dir)
  })

  it.each<readonly [BodyKind]>([["json"], ["form"], ["multipart"]])(
    "five wrong passwords from one address (%s) lock that address and that account, nobody else",
    { timeout: 120_000 },
    async (kind) => {
      // Each body kind gets its own addresses: the windows of the earlier rows are still open.
      const octet = { json: 10, form: 20, multipart: 30 }[kind]
      const attacker = `127.0.0.${octet}`
      const other = `127.0.0.${octet + 1}`
      // A fresh account per row too: the account's window of an earlier row may still be open.
      const created = await runCli(["user", "create", "--email", `target-${kind}@example.test`, "--workspace",
        /\((ws_\w+), plan pro\)/.exec(ctl.output())![1], "--role", "member", "--json"], ctl.env)
      const target = `target-${kind}@example.test`
      const targetPassword = JSON.parse(created.output.trim().split("\n").pop()!).password as string
      await roomInThisMinute(30)
      for (let i = 0; i < 5; i++) {
        expect((await signInFrom(ctl.baseUrl, attacker, target, `wrong-${i}`, { kind })).status).toBe(401)
      }
      // Another address, another account: not locked out (it was, for every user, while every client read as "unknown").
      const elsewhere = await signInFrom(ctl.baseUrl, other, VICTIM_EMAIL, passwords.victim, { kind })
      expect(elsewhere).toEqual({ status: 201, setCookie: true })
      // The account guessed at is locked from everywhere, the right password included.
      expect((await signInFrom(ctl.baseUrl, other, target, targetPassword, { kind })).status).toBe(429)
      // The guessing address is locked for every account.
      expect((await signInFrom(ctl.baseUrl, attacker, VICTIM_EMAIL, passwords.victim, { kind })).status).toBe(429)
    }
  )

  it("ignores X-Forwarded-For when no proxy is trusted", { timeout: 120_000 }, async () => {
    await roomInThisMinute(30)
    for (let i = 0; i < 5; i++) {
      const res = await signInFrom(ctl.baseUrl, "127.0.0.40", VICTIM_EMAIL, `wrong-${i}`, { forwardedFor: `198.51.100.${i}` })
      expect(res.status).toBe(401)
    }
    // The five came from one client whatever they claimed: it is locked out.
    expect((await signInFrom(ctl.baseUrl, "127.0.0.40", ADMIN_EMAIL, passwords.admin, { forwardedFor: "198.51.100.99" })).status).toBe(429)
  })
})

describe("sign-in limits see X-Forwarded-For behind a trusted proxy (PostgreSQL)", () => {
  let ctl: ControlHandle
  let dir: string
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let passwords: { admin: string; victim: string }

  beforeAll(async () => {
    dir = await tempDir()
    db = await createTestDatabase()
    ctl = await startControl({
      RICOCHET_DATA_DIR: dir,
      DATABASE_URL: db.url,
      NATS_URL: undefined,
      RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL,
      RICOCHET_TRUST_PROXY: "1"
    }, true)
    passwords = await passwordsOf(ctl)
  }, 180_000)

  afterAll(async () => {
    await ctl?.stop()
    await db?.drop()
    if (dir) await removeDir(dir)
  })

  it("counts each forwarded client on its own, all behind one proxy address", { timeout: 120_000 }, async () => {
    await roomInThisMinute(30)
    const proxy = "127.0.0.50"
    for (let i = 0; i < 5; i++) {
      expect((await signInFrom(ctl.baseUrl, proxy, VICTIM_EMAIL, `wrong-${i}`, { forwardedFor: "203.0.113.7" })).status).toBe(401)
    }
    // Another client behind the same proxy signs in.
    expect(await signInFrom(ctl.baseUrl, proxy, ADMIN_EMAIL, passwords.admin, { forwardedFor: "203.0.113.8, 10.0.0.1" }))
      .toEqual({ status: 201, setCookie: true })
    // The guessing client is locked for every account.
    expect((await signInFrom(ctl.baseUrl, proxy, ADMIN_EMAIL, passwords.admin, { forwardedFor: "203.0.113.7", kind: "form" })).status).toBe(429)
  })
})
