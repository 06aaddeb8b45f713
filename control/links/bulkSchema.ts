import { Schema } from "effect"
import { FieldIssue } from "../kernel/errors.ts"
import { Id } from "../kernel/fields.ts"
import { Link, LinkUpdate } from "./schema.ts"

/** At most this many links in one bulk request. */
export const MAX_BULK_ITEMS = 100

const Ids = Schema.Array(Id).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_BULK_ITEMS))

/**
 * Each item is decoded on its own (as `LinkCreate`), so one bad item fails alone with its 422 at
 * its index instead of refusing the whole request.
 */
export const BulkCreate = Schema.Struct({
  links: Schema.Array(
    Schema.Unknown.annotate({ description: "A LinkCreate object (as POST /v1/links takes), validated on its own" })
  ).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_BULK_ITEMS))
}).annotate({ identifier: "BulkLinkCreate" })

/**
 * The links to change and the fields to set on every one of them: any field of LinkUpdate but
 * `slug` (one slug set on many links could only ever fit one of them).
 */
export const BulkUpdate = Schema.Struct({
  ids: Ids,
  ...LinkUpdate.mapFields(({ slug: _slug, ...fields }) => fields).fields
}).annotate({ identifier: "BulkLinkUpdate" })
export type BulkUpdate = typeof BulkUpdate.Type

export const BulkDelete = Schema.Struct({ ids: Ids }).annotate({ identifier: "BulkLinkDelete" })

/** The error body of a single call, as one item's outcome. */
export const ItemError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  issues: Schema.optionalKey(Schema.Array(FieldIssue))
})

const Outcome = { index: Schema.Int, status: Schema.Int }

export const BulkLinkResult = Schema.Struct({
  data: Schema.Array(Schema.Union([
    Schema.Struct({ ...Outcome, link: Link }),
    Schema.Struct({ ...Outcome, error: ItemError })
  ]))
}).annotate({ identifier: "BulkLinkResult", description: "One outcome per item, in request order: the link, or the error a single call would answer" })

export const BulkDeleteResult = Schema.Struct({
  data: Schema.Array(Schema.Union([
    Schema.Struct({ ...Outcome, id: Schema.String }),
    Schema.Struct({ ...Outcome, id: Schema.String, error: ItemError })
  ]))
}).annotate({ identifier: "BulkDeleteResult", description: "One outcome per id, in request order" })
