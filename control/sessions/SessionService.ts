import { Context, Effect, Layer } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { LinkSettings } from "../../shared/settings/LinkSettings.ts"
import { SessionSettings } from "./SessionSettings.ts"
import { Database } from "../../shared/db/Database.ts"
import { attempt, query } from "../db/sql.ts"
import { Forbidden, RateLimitExceeded, Unauthorized } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import type { Principal } from "../kernel/Principal.ts"
import { verifyPassword } from "../auth/passwords.ts"
import { clearedSessionCookie, secureCookies, sessionCookie } from "./cookie.ts"
import { NotAMember } from "./errors.ts"
import type { Session } from "./schema.ts"
import { guessPassword } from "./passwordGuess.ts"
import { createSession, findAccount, memberships, revokeSession, switchWorkspace, userProfile } from "./sessions.ts"
import { failureBuckets } from "./signInLimiter.ts"

/** Signing in and out, and the session's workspace. */
export class SessionService extends Context.Service<SessionService, {
  readonly signIn: (
    input: { readonly email: string; readonly password: string; readonly workspaceId?: string },
    address: string
  ) => Effect.Effect<Session, Unauthorized | RateLimitExceeded | NotAMember | Forbidden | DatabaseUnavailable, HttpServerRequest.HttpServerRequest>
  readonly current: (principal: Principal) => Effect.Effect<Session, Unauthorized | DatabaseUnavailable>
  readonly switchTo: (principal: Principal, workspaceId: string) => Effect.Effect<Session, Unauthorized | NotAMember | DatabaseUnavailable>
  readonly signOut: (principal: Principal) => Effect.Effect<void, Unauthorized | DatabaseUnavailable, HttpServerRequest.HttpServerRequest>
  /** A new session of an account already authenticated (an invitation just accepted with its password), its cookie set. */
  readonly start: (userId: string, workspaceId: string) => Effect.Effect<Session, DatabaseUnavailable, HttpServerRequest.HttpServerRequest>
}>()("ricochet/SessionService") {}

const setCookie = (value: string) =>
  HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "set-cookie", value)))

/** The session endpoints other than sign-in need a session, not a key. */
export const sessionOf = (principal: Principal) =>
  principal.via === "session"
    ? Effect.succeed(principal)
    : Effect.fail(new Unauthorized({ message: "This endpoint is about a signed-in session; an API key has none" }))

export const SessionServiceLayer = Layer.effect(SessionService)(Effect.gen(function*() {
  const database = yield* Database
  const { publicOrigin } = yield* SessionSettings
  const { linkScheme } = yield* LinkSettings
  const secure = secureCookies({ publicOrigin, linkScheme })
  const withDatabase = Effect.provideService(Database, database)

  const describe = (userId: string, workspaceId: string) =>
    query(async (sql): Promise<Session> => {
      const [profile, workspaces] = await Promise.all([userProfile(sql, userId), memberships(sql, userId)])
      const current = workspaces.find((w) => w.id === workspaceId)!
      return {
        user: { id: userId, email: profile.email },
        workspace: { id: current.id, name: current.name, plan: current.plan },
        role: current.role,
        workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, plan: w.plan, role: w.role })),
        mustChangePassword: profile.mustChangePassword
      }
    }).pipe(withDatabase)

  const start = (userId: string, workspaceId: string) =>
    Effect.gen(function*() {
      const token = yield* query((sql) => createSession(sql, userId, workspaceId))
      yield* setCookie(sessionCookie(token, secure))
      return yield* describe(userId, workspaceId)
    }).pipe(withDatabase)

  return SessionService.of({
    signIn: (input, address) =>
      Effect.gen(function*() {
        const account = yield* guessPassword(
          failureBuckets(input.email, address),
          Effect.gen(function*() {
            const found = yield* query((sql) => findAccount(sql, input.email))
            const right = yield* attempt(() => verifyPassword(input.password, found?.passwordHash))
            return right ? found : undefined
          })
        )
        if (account === undefined) return yield* new Unauthorized({ message: "Wrong email or password" })
        const workspaces = yield* query((sql) => memberships(sql, account.id))
        const chosen = input.workspaceId === undefined ? workspaces[0] : workspaces.find((w) => w.id === input.workspaceId)
        if (chosen === undefined) {
          return yield* input.workspaceId === undefined
            ? new Forbidden({ message: "This account is not a member of any workspace" })
            : NotAMember.of(input.workspaceId)
        }
        return yield* start(account.id, chosen.id)
      }).pipe(withDatabase),
    start,
    current: (principal) => Effect.flatMap(sessionOf(principal), (session) => describe(session.userId, session.workspaceId)),
    switchTo: (principal, workspaceId) =>
      Effect.gen(function*() {
        const session = yield* sessionOf(principal)
        const workspaces = yield* query((sql) => memberships(sql, session.userId))
        if (!workspaces.some((w) => w.id === workspaceId)) return yield* NotAMember.of(workspaceId)
        yield* query((sql) => switchWorkspace(sql, session.credentialId, workspaceId))
        return yield* describe(session.userId, workspaceId)
      }).pipe(withDatabase),
    signOut: (principal) =>
      Effect.gen(function*() {
        const session = yield* sessionOf(principal)
        yield* query((sql) => revokeSession(sql, session.credentialId))
        yield* setCookie(clearedSessionCookie(secure))
      }).pipe(withDatabase)
  })
}))
