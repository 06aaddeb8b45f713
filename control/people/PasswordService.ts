import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Database } from "../../shared/db/Database.ts"
import type { RateLimitExceeded, Unauthorized } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import type { Principal } from "../kernel/Principal.ts"
import { attempt, query, run, transaction } from "../db/sql.ts"
import { guessPassword } from "../sessions/passwordGuess.ts"
import type { Session } from "../sessions/schema.ts"
import { sessionOf, SessionService } from "../sessions/SessionService.ts"
import { failureBuckets } from "../sessions/signInLimiter.ts"
import { CurrentPasswordWrong, NewPasswordUnchanged } from "./errors.ts"
import { passwordOf, replacePassword } from "./passwordChange.ts"
import { hashPassword, verifyPassword } from "../auth/passwords.ts"

/** A signed-in person changing their own password. */
export class PasswordService extends Context.Service<PasswordService, {
  readonly change: (
    principal: Principal,
    input: { readonly currentPassword: string; readonly newPassword: string },
    address: string
  ) => Effect.Effect<
    Session,
    Unauthorized | CurrentPasswordWrong | NewPasswordUnchanged | RateLimitExceeded | DatabaseUnavailable,
    HttpServerRequest.HttpServerRequest
  >
}>()("ricochet/PasswordService") {}

export const PasswordServiceLayer = Layer.effect(PasswordService)(Effect.gen(function*() {
  const database = yield* Database
  const sessions = yield* SessionService

  return PasswordService.of({
    change: (principal, input, address) =>
      Effect.gen(function*() {
        const session = yield* sessionOf(principal)
        const own = yield* query((sql) => passwordOf(sql, session.userId))
        // The current password is a guess like a sign-in's: limited the same way, on the same counters.
        const checkedHash = yield* guessPassword(
          failureBuckets(own?.email ?? "", address),
          Effect.map(attempt(() => verifyPassword(input.currentPassword, own?.passwordHash)), (right) => (right ? own?.passwordHash ?? undefined : undefined))
        )
        if (checkedHash === undefined) return yield* CurrentPasswordWrong.make()
        if (input.newPassword === input.currentPassword) return yield* NewPasswordUnchanged.make()
        const newHash = yield* attempt(() => hashPassword(input.newPassword))
        const replaced = yield* transaction((tx) =>
          run(() => replacePassword(tx, { userId: session.userId, checkedHash, newHash, keepSessionId: session.credentialId }))
        )
        if (!replaced) return yield* CurrentPasswordWrong.make()
        return yield* sessions.current(principal)
      }).pipe(Effect.provideService(Database, database))
  })
}))
