import { ApiError } from "../kernel/errors.ts"

/** 404: no webhook with that id in the workspace. */
export class WebhookNotFound extends ApiError<WebhookNotFound>()("WebhookNotFound", {
  code: "not_found",
  description: "No such webhook in this workspace"
}) {
  static readonly make = (): WebhookNotFound => new WebhookNotFound({ message: "Webhook not found" })
}
