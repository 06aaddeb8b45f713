import { Data } from "effect"

/** Refusals of the people commands (CLI, first start); each message is what the CLI prints. */
export class EmailInvalid extends Data.TaggedError("EmailInvalid")<{ readonly message: string }> {}
export class PasswordOutOfBounds extends Data.TaggedError("PasswordOutOfBounds")<{ readonly message: string }> {}
export class RoleInvalid extends Data.TaggedError("RoleInvalid")<{ readonly message: string }> {}
export class AlreadyMember extends Data.TaggedError("AlreadyMember")<{ readonly message: string }> {}
export class UserUnknown extends Data.TaggedError("UserUnknown")<{ readonly message: string }> {}

export type PeopleRefusal = EmailInvalid | PasswordOutOfBounds | RoleInvalid | AlreadyMember | UserUnknown
