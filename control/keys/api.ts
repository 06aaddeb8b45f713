import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminOnly } from "../kernel/AdminOnly.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { KeyNotFound } from "./errors.ts"
import { ApiKeyCreate, ApiKeyList, CreatedApiKey } from "./schema.ts"

/** /v1/keys: the workspace's API keys, for admins. */
export const KeysApi = HttpApiGroup.make("keys")
  .annotate(OpenApi.Description, "API keys of the workspace (admins only). A `read` key may only GET; a revoked key is refused at once")
  .add(HttpApiEndpoint.get("list", "/keys", { success: ApiKeyList }).middleware(AdminOnly).annotate(OpenApi.Summary, "List API keys"))
  .add(
    HttpApiEndpoint.post("create", "/keys", {
      payload: requestBody(ApiKeyCreate),
      success: CreatedApiKey.pipe(HttpApiSchema.status(201))
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(
      OpenApi.Description,
      "Creates a key acting as the caller's user with `role` (never more than that user's own role) and `scope` (`all`, the default, or `read`). The key is in this answer only."
    ).annotate(OpenApi.Summary, "Create an API key")
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/keys/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: KeyNotFound.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Revoke an API key")
  )
