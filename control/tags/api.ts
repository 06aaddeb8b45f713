import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { LimitReached } from "../kernel/errors.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { TagNameTaken, TagNotFound } from "./errors.ts"
import { Tag, TagCreate, TagList, TagUpdate } from "./schema.ts"

/** /v1/tags: the workspace's tags. */
export const TagsApi = HttpApiGroup.make("tags")
  .annotate(OpenApi.Description, "Tags to label links with; names are unique per workspace, case-insensitively")
  .add(HttpApiEndpoint.get("list", "/tags", { success: TagList }).annotate(OpenApi.Summary, "List tags"))
  .add(
    HttpApiEndpoint.post("create", "/tags", {
      payload: requestBody(TagCreate),
      success: Tag.pipe(HttpApiSchema.status(201)),
      error: [TagNameTaken.response, LimitReached.response]
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Create a tag")
  )
  .add(
    HttpApiEndpoint.patch("update", "/tags/:id", {
      params: input(IdParams),
      payload: requestBody(TagUpdate),
      success: Tag,
      error: [TagNotFound.response, TagNameTaken.response]
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Update a tag")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/tags/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: TagNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Delete a tag; its links stay, untagged")
  )
