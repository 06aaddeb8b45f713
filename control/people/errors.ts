import { Data } from "effect"
import { ApiError, type FieldIssue, invalidRequestMessage } from "../kernel/errors.ts"

/** Refusals of the people commands (CLI, first start); each message is what the CLI prints. */
export class EmailInvalid extends Data.TaggedError("EmailInvalid")<{ readonly message: string }> {}
export class PasswordOutOfBounds extends Data.TaggedError("PasswordOutOfBounds")<{ readonly message: string }> {}
export class RoleInvalid extends Data.TaggedError("RoleInvalid")<{ readonly message: string }> {}
export class AlreadyMember extends Data.TaggedError("AlreadyMember")<{ readonly message: string }> {}
export class UserUnknown extends Data.TaggedError("UserUnknown")<{ readonly message: string }> {}

export type PeopleRefusal = EmailInvalid | PasswordOutOfBounds | RoleInvalid | AlreadyMember | UserUnknown

/** The fields of a 422 with one issue at `field`. */
const issueAt = (field: string, message: string, code: string) => {
  const issues: ReadonlyArray<FieldIssue> = [{ path: [field], message, code }]
  return { message: invalidRequestMessage(issues), issues }
}

/**
 * 422 of a password change: the current password is not right. Not 401, which says the session
 * is not valid (clients sign out on it): the session is fine, one field is wrong. A wrong current
 * password counts as a wrong password of the sign-in limiter (429 past it), like a sign-in's.
 */
export class CurrentPasswordWrong extends ApiError<CurrentPasswordWrong>()("CurrentPasswordWrong", {
  code: "unprocessable_entity",
  description: "The current password is not right (a wrong_password issue at currentPassword)",
  issue: { code: "wrong_password", field: "currentPassword" }
}) {
  static readonly make = (): CurrentPasswordWrong =>
    new CurrentPasswordWrong(issueAt("currentPassword", "This is not your current password", "wrong_password"))
}

/** 422 of a password change: the new password is the current one. */
export class NewPasswordUnchanged extends ApiError<NewPasswordUnchanged>()("NewPasswordUnchanged", {
  code: "unprocessable_entity",
  description: "The new password is the current one (a same_as_current issue at newPassword)",
  issue: { code: "same_as_current", field: "newPassword" }
}) {
  static readonly make = (): NewPasswordUnchanged =>
    new NewPasswordUnchanged(issueAt("newPassword", "Choose a password other than the current one", "same_as_current"))
}
