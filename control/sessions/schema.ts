import { Schema } from "effect"
import { Id } from "../kernel/fields.ts"

const Role = Schema.Literals(["admin", "member"])
const Plan = Schema.Literals(["free", "basic", "pro", "business"])

export const SessionWorkspace = Schema.Struct({ id: Schema.String, name: Schema.String, plan: Plan, role: Role })
  .annotate({ identifier: "SessionWorkspace" })

/**
 * Who is signed in, the workspace the session acts in, and the workspaces it may switch to;
 * `mustChangePassword`: signed in with a one-time password, the session may do nothing but choose
 * a new one (POST /v1/me/password), read itself and sign out.
 */
export const Session = Schema.Struct({
  user: Schema.Struct({ id: Schema.String, email: Schema.String }),
  workspace: Schema.Struct({ id: Schema.String, name: Schema.String, plan: Plan }),
  role: Role,
  workspaces: Schema.Array(SessionWorkspace),
  mustChangePassword: Schema.Boolean
}).annotate({ identifier: "Session" })
export type Session = typeof Session.Type

export const SignIn = Schema.Struct({
  email: Schema.String.check(Schema.isBetweenCodePoints(1, 320)),
  password: Schema.String.check(Schema.isBetweenCodePoints(1, 200)),
  workspaceId: Schema.optionalKey(Id)
}).annotate({ identifier: "SignIn" })

export const SwitchWorkspace = Schema.Struct({ workspaceId: Id }).annotate({ identifier: "SwitchWorkspace" })

export const SignedOut = Schema.Struct({ signedOut: Schema.Literal(true) }).annotate({ identifier: "SignedOut" })
