import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Database } from "../../shared/db/Database.ts"
import type { RateLimitExceeded, Unauthorized } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import type { Principal } from "../kernel/Principal.ts"
import { attempt, query, run, transaction } from "../db/sql.ts"
import { hashPassword, verifyPassword } from "../auth/passwords.ts"
import { normalizeEmail } from "../people/users.ts"
import { guessPassword } from "../sessions/passwordGuess.ts"
import type { Session } from "../sessions/schema.ts"
import { sessionOf, SessionService } from "../sessions/SessionService.ts"
import { failureBuckets } from "../sessions/signInLimiter.ts"
import { AlreadyInvited, InvitationPasswordWrong, InvitationUnknown, LastAdmin, MemberNotFound } from "./errors.ts"
import {
  acceptInvitation,
  changeRole,
  createInvitation,
  endOtherSessions,
  findPendingInvitation,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation
} from "./members.ts"
import { type Invitation, type Member, NEW_ACCOUNT_PASSWORD } from "./schema.ts"

type Role = Member["role"]

/** The people of a workspace: who they are, their roles, invitations to join, leaving. */
export class MemberService extends Context.Service<MemberService, {
  readonly list: (principal: Principal) => Effect.Effect<Array<Member>, DatabaseUnavailable>
  readonly setRole: (principal: Principal, userId: string, role: Role) => Effect.Effect<Member, MemberNotFound | LastAdmin | DatabaseUnavailable>
  readonly remove: (principal: Principal, userId: string) => Effect.Effect<void, MemberNotFound | LastAdmin | DatabaseUnavailable>
  readonly invitations: (principal: Principal) => Effect.Effect<Array<Invitation>, DatabaseUnavailable>
  readonly invite: (principal: Principal, email: string, role: Role) => Effect.Effect<Invitation & { readonly token: string }, AlreadyInvited | DatabaseUnavailable>
  readonly revokeInvitation: (principal: Principal, id: string) => Effect.Effect<void, InvitationUnknown | DatabaseUnavailable>
  readonly preview: (token: string) => Effect.Effect<{ email: string; role: Role; workspace: { name: string }; accountExists: boolean }, InvitationUnknown | DatabaseUnavailable>
  readonly accept: (
    token: string,
    password: string,
    address: string
  ) => Effect.Effect<Session, InvitationUnknown | InvitationPasswordWrong | RateLimitExceeded | DatabaseUnavailable, HttpServerRequest.HttpServerRequest>
  readonly endOtherSessions: (principal: Principal) => Effect.Effect<number, Unauthorized | DatabaseUnavailable>
}>()("ricochet/MemberService") {}

export const MemberServiceLayer = Layer.effect(MemberService)(Effect.gen(function*() {
  const database = yield* Database
  const sessions = yield* SessionService
  const withDatabase = Effect.provideService(Database, database)
  return MemberService.of({
    list: (principal) => query((sql) => listMembers(sql, principal.workspaceId)).pipe(withDatabase),
    setRole: (principal, userId, role) =>
      transaction((tx) => run(() => changeRole(tx, principal.workspaceId, userId, role))).pipe(
        Effect.flatMap((change): Effect.Effect<Member, MemberNotFound | LastAdmin> =>
          change === "unknown" ? Effect.fail(MemberNotFound.make()) : change === "last_admin" ? Effect.fail(LastAdmin.make()) : Effect.succeed(change.member)),
        withDatabase
      ),
    remove: (principal, userId) =>
      transaction((tx) => run(() => removeMember(tx, principal.workspaceId, userId))).pipe(
        Effect.flatMap((outcome): Effect.Effect<void, MemberNotFound | LastAdmin> =>
          outcome === "unknown" ? Effect.fail(MemberNotFound.make()) : outcome === "last_admin" ? Effect.fail(LastAdmin.make()) : Effect.void),
        withDatabase
      ),
    invitations: (principal) => query((sql) => listInvitations(sql, principal.workspaceId)).pipe(withDatabase),
    invite: (principal, email, role) =>
      transaction((tx) => run(() => createInvitation(tx, { workspaceId: principal.workspaceId, email: normalizeEmail(email), role, invitedBy: principal.userId }))).pipe(
        Effect.flatMap((made): Effect.Effect<Invitation & { readonly token: string }, AlreadyInvited> =>
          made === "member"
            ? Effect.fail(new AlreadyInvited({ message: `${normalizeEmail(email)} is a member of this workspace already` }))
            : made === "invited"
              ? Effect.fail(new AlreadyInvited({ message: `${normalizeEmail(email)} has an invitation waiting: revoke it to send another` }))
              : Effect.succeed({ ...made.invitation, token: made.token })
        ),
        withDatabase
      ),
    revokeInvitation: (principal, id) =>
      query((sql) => revokeInvitation(sql, principal.workspaceId, id)).pipe(
        Effect.flatMap((revoked) => (revoked ? Effect.void : Effect.fail(InvitationUnknown.make()))),
        withDatabase
      ),
    preview: (token) =>
      query((sql) => findPendingInvitation(sql, token)).pipe(
        Effect.flatMap((found): Effect.Effect<{ email: string; role: Role; workspace: { name: string }; accountExists: boolean }, InvitationUnknown> =>
          found === undefined
            ? Effect.fail(InvitationUnknown.make())
            : Effect.succeed({ email: found.email, role: found.role, workspace: { name: found.workspaceName }, accountExists: found.account !== undefined })
        ),
        withDatabase
      ),
    accept: (token, password, address) =>
      Effect.gen(function*() {
        const invitation = yield* query((sql) => findPendingInvitation(sql, token))
        if (invitation === undefined) return yield* InvitationUnknown.make()
        let newAccount: { passwordHash: string } | undefined
        if (invitation.account !== undefined) {
          // The account's own password: a guess like a sign-in's, limited on the same counters.
          const right = yield* guessPassword(
            failureBuckets(invitation.email, address),
            Effect.map(attempt(() => verifyPassword(password, invitation.account?.passwordHash ?? undefined)), (ok) => (ok ? true : undefined))
          )
          if (right === undefined) return yield* InvitationPasswordWrong.of(`This is not the password of ${invitation.email}'s account`)
        } else {
          if (password.length < NEW_ACCOUNT_PASSWORD.min) {
            return yield* InvitationPasswordWrong.of(`Choose a password of ${NEW_ACCOUNT_PASSWORD.min} to ${NEW_ACCOUNT_PASSWORD.max} characters`)
          }
          newAccount = { passwordHash: yield* attempt(() => hashPassword(password)) }
        }
        const userId = yield* transaction((tx) => run(() => acceptInvitation(tx, invitation, newAccount)))
        if (userId === undefined) return yield* InvitationUnknown.make()
        return yield* sessions.start(userId, invitation.workspaceId)
      }).pipe(withDatabase),
    endOtherSessions: (principal) =>
      Effect.flatMap(sessionOf(principal), (session) => query((sql) => endOtherSessions(sql, session.userId, session.credentialId))).pipe(withDatabase)
  })
}))
