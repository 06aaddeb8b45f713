import { ApiError, type FieldIssue, invalidRequestMessage } from "../kernel/errors.ts"

/** 404: nobody with that user id is a member of this workspace. */
export class MemberNotFound extends ApiError<MemberNotFound>()("MemberNotFound", {
  code: "not_found",
  description: "No member with that user id in this workspace"
}) {
  static readonly make = (): MemberNotFound => new MemberNotFound({ message: "Member not found" })
}

/** 409: the change would leave the workspace without an admin. */
export class LastAdmin extends ApiError<LastAdmin>()("LastAdmin", {
  code: "conflict",
  description: "A workspace keeps at least one admin"
}) {
  static readonly make = (): LastAdmin => new LastAdmin({ message: "A workspace keeps at least one admin: make someone else admin first" })
}

/** 409: the email is a member already (or has an invitation waiting). */
export class AlreadyInvited extends ApiError<AlreadyInvited>()("AlreadyInvited", {
  code: "conflict",
  description: "The email is a member already, or has an invitation waiting"
}) {}

/** 404: no pending invitation with that id, or that token (used, revoked or expired: the same answer). */
export class InvitationUnknown extends ApiError<InvitationUnknown>()("InvitationUnknown", {
  code: "not_found",
  description: "No such invitation, or it was used, revoked or has expired"
}) {
  static readonly make = (): InvitationUnknown =>
    new InvitationUnknown({ message: "This invitation is not valid: it was used, revoked or has expired. Ask for a new one." })
}

/** 422 at password: accepting for an existing account needs that account's password; a new one 8 to 200 characters. */
export class InvitationPasswordWrong extends ApiError<InvitationPasswordWrong>()("InvitationPasswordWrong", {
  code: "unprocessable_entity",
  description: "The password is not the account's (a wrong_password issue at password), or too short for a new account",
  issue: { code: "wrong_password", field: "password" }
}) {
  static readonly of = (message: string): InvitationPasswordWrong => {
    const issues: ReadonlyArray<FieldIssue> = [{ path: ["password"], message, code: "wrong_password" }]
    return new InvitationPasswordWrong({ message: invalidRequestMessage(issues), issues })
  }
}
