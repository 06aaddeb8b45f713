import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, LimitReached, PlanRequired, ValidationFailed } from "../kernel/errors.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { LinkNotFound, SlugTaken } from "./errors.ts"
import { BulkCreate, BulkDelete, BulkDeleteResult, BulkLinkResult, BulkUpdate } from "./bulkSchema.ts"
import { ExportLinksQuery, LinksCsv } from "./export/schema.ts"
import { ImportFinished, ImportNotFound, ImportUploading } from "./import/errors.ts"
import { ImportJob, ImportJobParams, ImportUpload } from "./import/schema.ts"
import { QrRendererBusy } from "./qr/errors.ts"
import { QrImage, QrQuery } from "./qr/schema.ts"
import { Link, LinkCreate, LinkInfoQuery, LinkPage, LinkUpdate, ListLinksQuery } from "./schema.ts"
import { DomainUnknown, FolderUnknown, TagUnknown } from "../kernel/unknownReferences.ts"

/** /v1/links: short links of the caller's workspace. */
export const LinksApi = HttpApiGroup.make("links")
  .annotate(OpenApi.Description, "Short links: destination, slug on a domain of the workspace, rules, expiry, password")
  .add(
    HttpApiEndpoint.get("list", "/links", {
      query: input(ListLinksQuery),
      success: LinkPage
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "List links, newest first")
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
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Create a link")
  )
  .add(
    HttpApiEndpoint.post("bulkCreate", "/links/bulk", {
      payload: requestBody(BulkCreate),
      success: BulkLinkResult
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Up to 100 links, each validated and created on its own as POST /v1/links would (plan gates and quota included). " +
        "The answer lists, in order, each item's index and status with the link (201) or the error body a single call would answer."
    ).annotate(OpenApi.Summary, "Create links in bulk")
  )
  .add(
    HttpApiEndpoint.patch("bulkUpdate", "/links/bulk", {
      payload: requestBody(BulkUpdate),
      success: BulkLinkResult,
      error: PlanRequired.response
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Sets the same fields (any of PATCH /v1/links/{id} but slug) on up to 100 links, each changed on its own; " +
        "an id that is not the workspace's is that item's 404."
    ).annotate(OpenApi.Summary, "Update links in bulk")
  )
  .add(
    HttpApiEndpoint.delete("bulkDelete", "/links/bulk", {
      payload: requestBody(BulkDelete),
      success: BulkDeleteResult
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Delete up to 100 links, each on its own")
  )
  .add(
    HttpApiEndpoint.get("export", "/links/export", {
      query: input(ExportLinksQuery),
      success: LinksCsv
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Every link the listing's filters match, newest first, as CSV streamed in batches (any number of links). " +
        "The same columns are read back by POST /v1/links/import."
    ).annotate(OpenApi.Summary, "Export links as CSV")
  )
  .add(
    HttpApiEndpoint.post("import", "/links/import", {
      payload: ImportUpload,
      success: ImportJob.pipe(HttpApiSchema.status(202)),
      error: [BadRequest.response, ValidationFailed.response, LimitReached.response, ImportUploading.response]
    }).annotate(
      OpenApi.Description,
      "A CSV file (a text/csv body, or multipart/form-data with the file as `file`, up to 64 MiB and 100,000 links) " +
        "with a header line: our export's columns, or Bitly's, Dub's and Shlink's (long_url, longUrl, shortCode, key, " +
        "shortUrl, link, tags, …). The links are created by a job: poll GET /v1/links/import/{id}. A row whose slug is " +
        "taken, or without a slug whose url its domain already has, is skipped, so importing a file again creates nothing twice. " +
        "An `Idempotency-Key` header (1 to 255 printable ASCII characters) makes a retry safe: another upload with the same key " +
        "answers the first one's job (409 while that upload is still being stored). A workspace has at most 5 imports queued " +
        "or running (403 limit_reached beyond)."
    ).annotate(OpenApi.Summary, "Import links from CSV")
  )
  .add(
    HttpApiEndpoint.get("importStatus", "/links/import/:id", {
      params: input(ImportJobParams),
      success: ImportJob,
      error: ImportNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Progress and outcome of an import")
  )
  .add(
    HttpApiEndpoint.delete("cancelImport", "/links/import/:id", {
      params: input(ImportJobParams),
      success: ImportJob,
      error: [ImportNotFound.response, ImportFinished.response]
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Stops a queued or running import at its next batch (of 100 rows): the links it created stay, and the job, now " +
        "`cancelled`, keeps its counts (the batch running when it was cancelled may still add to them). Cancelling a " +
        "cancelled job answers it again; a done one is a 409."
    ).annotate(OpenApi.Summary, "Cancel an import")
  )
  .add(
    HttpApiEndpoint.get("info", "/links/info", {
      query: input(LinkInfoQuery),
      success: Link,
      error: LinkNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Find a link by its domain and slug")
  )
  .add(
    HttpApiEndpoint.get("get", "/links/:id", {
      params: input(IdParams),
      success: Link,
      error: LinkNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Get a link")
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
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Update a link; only the fields sent change")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/links/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: LinkNotFound.response
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "Delete a link")
  )
  .add(
    HttpApiEndpoint.get("qr", "/links/:id/qr", {
      params: input(IdParams),
      query: input(QrQuery),
      success: QrImage,
      error: [LinkNotFound.response, ValidationFailed.response, QrRendererBusy.response]
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "A QR code that encodes the link's shortLink (error correction M). The colors must keep a contrast ratio of 3:1 or more, " +
        "the dark modules darker than the background (422 otherwise). Codes are drawn by a few threads fed from a bounded " +
        "queue shared fairly by the workspaces: when it, or this workspace's share of it, is full the answer is a 503 with " +
        "Retry-After. Codes already drawn are answered from a cache."
    ).annotate(OpenApi.Summary, "QR code of a link, PNG or SVG")
  )
