import { Effect } from "effect"
import { query } from "../db/query.ts"
import { DeletionResult, IdParams } from "../http/fields.ts"
import { route } from "../http/route.ts"
import { createFolder, deleteFolder, listFolders, renameFolder } from "./repository.ts"
import { Folder, FolderCreate, FolderList, FolderUpdate } from "./schema.ts"

export const folderRoutes = [
  route({
    method: "GET",
    path: "/v1/folders",
    group: "folders",
    summary: "List folders",
    success: FolderList,
    status: 200,
    handler: ({ principal }) => Effect.map(query((sql) => listFolders(sql, principal.workspaceId)), (data) => ({ data }))
  }),
  route({
    method: "POST",
    path: "/v1/folders",
    group: "folders",
    summary: "Create a folder",
    body: FolderCreate,
    success: Folder,
    status: 201,
    handler: ({ principal, body }) => query((sql) => createFolder(sql, principal, body.name))
  }),
  route({
    method: "PATCH",
    path: "/v1/folders/:id",
    group: "folders",
    summary: "Rename a folder",
    params: IdParams,
    body: FolderUpdate,
    success: Folder,
    status: 200,
    handler: ({ principal, params, body }) => query((sql) => renameFolder(sql, principal.workspaceId, params.id, body.name))
  }),
  route({
    method: "DELETE",
    path: "/v1/folders/:id",
    group: "folders",
    summary: "Delete a folder; its links stay, outside any folder",
    params: IdParams,
    success: DeletionResult,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.as(query((sql) => deleteFolder(sql, principal.workspaceId, params.id)), { id: params.id })
  })
]
