import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"
import { Id } from "../../kernel/fields.ts"
import { ItemError } from "../bulkSchema.ts"

/** Failed rows a job report lists; the count says how many there were in all. */
export const MAX_REPORTED_FAILURES = 1_000

/** Imports a workspace may have queued or running at once; one more is refused (403 limit_reached). */
export const MAX_UNFINISHED_IMPORTS = 5

export const ImportJob = Schema.Struct({
  id: Schema.String,
  status: Schema.Literals(["queued", "running", "done", "cancelled"]).annotate({
    description: "queued, running, done, or cancelled (DELETE stopped it; the links it had created stay, and the counts say how many)"
  }),
  totalRows: Schema.Int,
  rowsDone: Schema.Int,
  created: Schema.Int,
  skipped: Schema.Int,
  failed: Schema.Int,
  failures: Schema.Array(Schema.Struct({ row: Schema.Int, error: ItemError })).annotate({
    description: `The first ${MAX_REPORTED_FAILURES.toLocaleString("en-US")} failed rows, in file order: the row number (the header is row 1) and the error body a single POST /v1/links would answer`
  }),
  ignoredColumns: Schema.Array(Schema.String),
  createdAt: Schema.String,
  finishedAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ImportJob" })
export type ImportJob = typeof ImportJob.Type

export const ImportJobParams = Schema.Struct({ id: Id })

/** The upload, for the document and the typed client: a CSV body, or a form with the file as `file`. */
export const ImportUpload = [
  Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/csv" })),
  Schema.Struct({ file: Schema.String }).pipe(HttpApiSchema.asMultipart())
] as const
