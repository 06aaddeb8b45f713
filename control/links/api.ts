import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { LimitReached, PlanRequired } from "../api/errors.ts"
import { input, requestBody, RequestInput } from "../api/RequestInput.ts"
import { DeletionResult, IdParams } from "../http/fields.ts"
import { DomainUnknown, FolderUnknown, LinkNotFound, SlugTaken, TagUnknown } from "./errors.ts"
import { Link, LinkCreate, LinkInfoQuery, LinkPage, LinkUpdate, ListLinksQuery } from "./schema.ts"

/** /v1/links: short links of the caller's workspace. */
export const LinksApi = HttpApiGroup.make("links")
  .annotate(OpenApi.Description, "Short links: destination, slug on a domain of the workspace, rules, expiry, password")
  .add(
    HttpApiEndpoint.get("list", "/links", {
      query: input(ListLinksQuery),
      success: LinkPage
    }).middleware(RequestInput).annotate(OpenApi.Summary, "List links, newest first")
  )
  .add(
    HttpApiEndpoint.post("create", "/links", {
      payload: requestBody(LinkCreate),
      success: Link.pipe(HttpApiSchema.status(201)),
      error: [
        SlugTaken.response,
        DomainUnknown.response,
        FolderUnknown.response,
        TagUnknown.response,
        PlanRequired.response,
        LimitReached.response
      ]
    }).middleware(RequestInput).annotate(OpenApi.Summary, "Create a link")
  )
  .add(
    HttpApiEndpoint.get("info", "/links/info", {
      query: input(LinkInfoQuery),
      success: Link,
      error: LinkNotFound.response
    }).middleware(RequestInput).annotate(OpenApi.Summary, "Find a link by its domain and slug")
  )
  .add(
    HttpApiEndpoint.get("get", "/links/:id", {
      params: input(IdParams),
      success: Link,
      error: LinkNotFound.response
    }).middleware(RequestInput).annotate(OpenApi.Summary, "Get a link")
  )
  .add(
    HttpApiEndpoint.patch("update", "/links/:id", {
      params: input(IdParams),
      payload: requestBody(LinkUpdate),
      success: Link,
      error: [
        LinkNotFound.response,
        SlugTaken.response,
        FolderUnknown.response,
        TagUnknown.response,
        PlanRequired.response
      ]
    }).middleware(RequestInput).annotate(OpenApi.Summary, "Update a link; only the fields sent change")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/links/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: LinkNotFound.response
    }).middleware(RequestInput).annotate(OpenApi.Summary, "Delete a link")
  )
