import { Schema } from "effect"

/**
 * What `ricochet` (the CLI) asks a running control to do over its admin channel
 * (control/admin/adminChannel.ts), and what it answers: one Schema each, decoded on receipt at
 * both ends. Plans and roles travel as strings: the command itself says, in the CLI's words,
 * what is wrong with a value (`--plan must be one of …`).
 */
export const AdminCommand = Schema.Union([
  Schema.Struct({ command: Schema.Literal("workspace.create"), name: Schema.String, plan: Schema.String }),
  Schema.Struct({ command: Schema.Literal("workspace.list") }),
  Schema.Struct({ command: Schema.Literal("workspace.setPlan"), workspaceId: Schema.String, plan: Schema.String }),
  Schema.Struct({ command: Schema.Literal("key.create"), workspaceId: Schema.String, role: Schema.String }),
  Schema.Struct({ command: Schema.Literal("key.list"), workspaceId: Schema.String }),
  Schema.Struct({ command: Schema.Literal("key.revoke"), id: Schema.String }),
  Schema.Struct({
    command: Schema.Literal("user.create"),
    email: Schema.String,
    workspaceId: Schema.String,
    role: Schema.String,
    password: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({ command: Schema.Literal("user.resetPassword"), email: Schema.String, password: Schema.optionalKey(Schema.String) }),
  Schema.Struct({ command: Schema.Literal("user.list"), workspaceId: Schema.optionalKey(Schema.String) })
])
export type AdminCommand = typeof AdminCommand.Type

/** A command's body as it crosses the channel: JSON text of an AdminCommand. */
export const AdminCommandJson = Schema.fromJsonString(AdminCommand)

/** The channel's answer to a command it refused (400) or could not run (500). */
export const AdminFailure = Schema.Struct({ error: Schema.String })
export const AdminFailureJson = Schema.fromJsonString(AdminFailure)
