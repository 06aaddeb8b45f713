import { Effect } from "effect"
import { query } from "../db/query.ts"
import { DeletionResult, IdParams } from "../http/fields.ts"
import { route } from "../http/route.ts"
import { createTag, deleteTag, listTags, updateTag } from "./repository.ts"
import { Tag, TagCreate, TagList, TagUpdate } from "./schema.ts"

export const tagRoutes = [
  route({
    method: "GET",
    path: "/v1/tags",
    group: "tags",
    summary: "List tags",
    success: TagList,
    status: 200,
    handler: ({ principal }) => Effect.map(query((sql) => listTags(sql, principal.workspaceId)), (data) => ({ data }))
  }),
  route({
    method: "POST",
    path: "/v1/tags",
    group: "tags",
    summary: "Create a tag",
    body: TagCreate,
    success: Tag,
    status: 201,
    handler: ({ principal, body }) => query((sql) => createTag(sql, principal, body))
  }),
  route({
    method: "PATCH",
    path: "/v1/tags/:id",
    group: "tags",
    summary: "Update a tag",
    params: IdParams,
    body: TagUpdate,
    success: Tag,
    status: 200,
    handler: ({ principal, params, body }) => query((sql) => updateTag(sql, principal.workspaceId, params.id, body))
  }),
  route({
    method: "DELETE",
    path: "/v1/tags/:id",
    group: "tags",
    summary: "Delete a tag; its links stay, untagged",
    params: IdParams,
    success: DeletionResult,
    status: 200,
    handler: ({ principal, params }) =>
      Effect.as(query((sql) => deleteTag(sql, principal.workspaceId, params.id)), { id: params.id })
  })
]
