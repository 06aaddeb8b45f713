import { Schema } from "effect"

/** A password a person or an operator chooses (the CLI's `user create` and `reset-password` too): 8 to 200 characters. */
export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 200

/** POST /v1/me/password: the password signed in with, and the one to replace it. */
export const PasswordChange = Schema.Struct({
  currentPassword: Schema.String.check(Schema.isBetweenCodePoints(1, MAX_PASSWORD_LENGTH)),
  newPassword: Schema.String.check(Schema.isBetweenCodePoints(MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH))
}).annotate({ identifier: "PasswordChange" })
