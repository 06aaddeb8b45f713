import { ApiError } from "../kernel/errors.ts"

/** 404: no live key with that id in the workspace (revoked keys are gone). */
export class KeyNotFound extends ApiError<KeyNotFound>()("KeyNotFound", {
  code: "not_found",
  description: "No such key in this workspace, or it is already revoked"
}) {
  static readonly make = (): KeyNotFound => new KeyNotFound({ message: "Key not found" })
}
