import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminOnly } from "../kernel/AdminOnly.ts"
import { ValidationFailed } from "../kernel/errors.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { WebhookNotFound } from "./errors.ts"
import { DeliveryListQuery, DeliveryPage, Webhook, WebhookCreate, WebhookList, WebhookUpdate, WebhookWithSecret } from "./schema.ts"

/** /v1/webhooks: signed HTTP callbacks for link, domain and click events; admins only. */
export const WebhooksApi = HttpApiGroup.make("webhooks")
  .annotate(
    OpenApi.Description,
    "Webhooks for link.created, link.updated, link.deleted, domain.verified, domain.failed and link.clicked, signed as " +
      "Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>). " +
      "Delivered at least once, in order per link, retried with backoff for 24 hours; disabled after failing for 3 days. Admins only."
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks", { success: WebhookList }).middleware(AdminOnly).annotate(OpenApi.Summary, "List webhooks")
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks", {
      payload: requestBody(WebhookCreate),
      success: WebhookWithSecret.pipe(HttpApiSchema.status(201)),
      error: ValidationFailed.response
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "Create a webhook; the response carries its signing secret, shown this once")
  )
  .add(
    HttpApiEndpoint.get("get", "/webhooks/:id", {
      params: input(IdParams),
      success: Webhook,
      error: WebhookNotFound.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Get a webhook")
  )
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id", {
      params: input(IdParams),
      payload: requestBody(WebhookUpdate),
      success: Webhook,
      error: [WebhookNotFound.response, ValidationFailed.response]
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "Update a webhook; enabled: true re-enables one that was disabled")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/webhooks/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: WebhookNotFound.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Delete a webhook and its delivery log")
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries", {
      params: input(IdParams),
      query: input(DeliveryListQuery),
      success: DeliveryPage,
      error: WebhookNotFound.response
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "The webhook's deliveries, newest first: status, attempts, the receiver's last response, the next attempt")
  )
