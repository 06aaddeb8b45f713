import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { LimitReached } from "../kernel/errors.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { FolderNameTaken, FolderNotFound } from "./errors.ts"
import { Folder, FolderCreate, FolderList, FolderUpdate } from "./schema.ts"

/** /v1/folders: the workspace's folders. */
export const FoldersApi = HttpApiGroup.make("folders")
  .annotate(OpenApi.Description, "Folders to group links in; names are unique per workspace, case-insensitively")
  .add(HttpApiEndpoint.get("list", "/folders", { success: FolderList }).annotate(OpenApi.Summary, "List folders"))
  .add(
    HttpApiEndpoint.post("create", "/folders", {
      payload: requestBody(FolderCreate),
      success: Folder.pipe(HttpApiSchema.status(201)),
      error: [FolderNameTaken.response, LimitReached.response]
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Create a folder")
  )
  .add(
    HttpApiEndpoint.patch("update", "/folders/:id", {
      params: input(IdParams),
      payload: requestBody(FolderUpdate),
      success: Folder,
      error: [FolderNotFound.response, FolderNameTaken.response]
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Rename a folder")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/folders/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: FolderNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Delete a folder; its links stay, outside any folder")
  )
