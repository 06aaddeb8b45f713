import { HttpApiSchema } from "effect/http-api"
import { ListLinksQuery } from "../schema.ts"

/** The listing's filters: an export holds every link they match, not one page. */
export const ExportLinksQuery = ListLinksQuery.mapFields(({ limit: _limit, cursor: _cursor, ...filters }) => filters)
  .annotate({ identifier: "ExportLinksQuery" })

export const LinksCsv = HttpApiSchema.StreamUint8Array({ contentType: "text/csv" }).annotate({
  description: "A header line, then one line per link (RFC 4180, UTF-8): every field of Link under its own name, " +
    "lists and objects as JSON cells"
})
