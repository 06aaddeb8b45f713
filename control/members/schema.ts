import { Schema } from "effect"
import { EMAIL } from "../../shared/email.ts"
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../people/schema.ts"

const Role = Schema.Literals(["admin", "member"])

/** A person of the workspace (keys made by the CLI for no one are not people). */
export const Member = Schema.Struct({
  userId: Schema.String,
  email: Schema.String,
  role: Role,
  joinedAt: Schema.String
}).annotate({ identifier: "Member" })
export type Member = typeof Member.Type

export const MemberList = Schema.Struct({ data: Schema.Array(Member) })

export const RoleChange = Schema.Struct({ role: Role }).annotate({ identifier: "RoleChange" })

/** An invitation not yet accepted, revoked or expired. */
export const Invitation = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  role: Role,
  invitedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  expiresAt: Schema.String
}).annotate({ identifier: "Invitation" })
export type Invitation = typeof Invitation.Type

export const InvitationList = Schema.Struct({ data: Schema.Array(Invitation) })

/** A new invitation: its `token`, shown this once, makes the one-time link. */
export const CreatedInvitation = Schema.Struct({ ...Invitation.fields, token: Schema.String }).annotate({ identifier: "CreatedInvitation" })

export const InvitationCreate = Schema.Struct({
  email: Schema.String.check(
    Schema.isBetweenCodePoints(3, 320),
    Schema.makeFilter((s: string) => EMAIL.test(s.trim().toLowerCase()) || "Expected an email address", { expected: "an email address" })
  ),
  role: Role
}).annotate({ identifier: "InvitationCreate" })

const Token = Schema.String.check(Schema.isBetweenCodePoints(1, 200))

export const InvitationToken = Schema.Struct({ token: Token }).annotate({ identifier: "InvitationToken" })

/** What the invitation page shows before it is accepted. */
export const InvitationPreview = Schema.Struct({
  email: Schema.String,
  role: Role,
  workspace: Schema.Struct({ name: Schema.String }),
  /** The email has an account: accepting asks for its password; otherwise for a new one. */
  accountExists: Schema.Boolean
}).annotate({ identifier: "InvitationPreview" })

export const InvitationAccept = Schema.Struct({
  token: Token,
  password: Schema.String.check(Schema.isBetweenCodePoints(1, MAX_PASSWORD_LENGTH))
}).annotate({ identifier: "InvitationAccept" })

export const NEW_ACCOUNT_PASSWORD = { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH }

/** How many sessions of the person ended. */
export const OtherSessionsEnded = Schema.Struct({ signedOut: Schema.Int }).annotate({ identifier: "OtherSessionsEnded" })
