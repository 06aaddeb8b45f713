import { request } from "node:http"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"

/**
 * Handlers see the request as it arrived: signing in is limited per account and per client
 * address, and the address is the client's own (or X-Forwarded-For's behind a trusted proxy),
 * whatever the body's content type. When the request-input step rebuilt the request, every
 * client read as "unknown": five wrong passwords from anywhere locked every user out. The API is
 * served in process (its clock moved by the test: every test counts in a fresh minute window).
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

const passwordsOf = async (ctl: InProcessControl) => {
  const victim = await ctl.createUser({ email: VICTIM_EMAIL, workspaceId: ctl.first.workspace.id, role: "member" })
  return { admin: ctl.first.admin.password, victim: victim.password! }
}

describe("sign-in limits see the client's own address (embedded default, no proxy)", () => {
  let ctl: InProcessControl
  let passwords: { admin: string; victim: string }

  beforeAll(async () => {
    ctl = await startInProcessControl("embedded", { RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL })
    passwords = await passwordsOf(ctl)
  }, 120_000)

  afterAll(async () => {
    await ctl?.stop()
  })

  beforeEach(() => ctl.advance("1 minute"))

  it.each<readonly [BodyKind]>([["json"], ["form"], ["multipart"]])(
    "five wrong passwords from one address (%s) lock that address and that account, nobody else",
    async (kind) => {
      const octet = { json: 10, form: 20, multipart: 30 }[kind]
      const attacker = `127.0.0.${octet}`
      const other = `127.0.0.${octet + 1}`
      const created = await ctl.createUser({ email: `target-${kind}@example.test`, workspaceId: ctl.first.workspace.id, role: "member" })
      const target = created.user.email
      const targetPassword = created.password!
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

  it("ignores X-Forwarded-For when no proxy is trusted", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await signInFrom(ctl.baseUrl, "127.0.0.40", VICTIM_EMAIL, `wrong-${i}`, { forwardedFor: `198.51.100.${i}` })
      expect(res.status).toBe(401)
    }
    // The five came from one client whatever they claimed: it is locked out.
    expect((await signInFrom(ctl.baseUrl, "127.0.0.40", ADMIN_EMAIL, passwords.admin, { forwardedFor: "198.51.100.99" })).status).toBe(429)
  })
})

describe("sign-in limits see X-Forwarded-For behind a trusted proxy (PostgreSQL)", () => {
  let ctl: InProcessControl
  let passwords: { admin: string; victim: string }

  beforeAll(async () => {
    ctl = await startInProcessControl("postgres", { RICOCHET_ADMIN_EMAIL: ADMIN_EMAIL, RICOCHET_TRUST_PROXY: "1" })
    passwords = await passwordsOf(ctl)
  }, 120_000)

  afterAll(async () => {
    await ctl?.stop()
  })

  it("counts each forwarded client on its own, all behind one proxy address", async () => {
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
