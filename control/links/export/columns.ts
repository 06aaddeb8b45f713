import type { Link } from "../schema.ts"
import { neutraliseFormula } from "../spreadsheetCells.ts"

/**
 * The columns of an export, in order: every field of the Link resource under its own name.
 * Lists and objects (tags, utm, rules, the A/B test) are JSON cells; absent values are empty
 * cells, booleans `true`/`false`. A cell a spreadsheet would run as a formula starts with `'`
 * (spreadsheetCells.ts). An import reads these same columns back.
 */
export const EXPORT_COLUMNS = [
  "id", "domain", "slug", "shortLink", "url", "title", "description", "ogImageUrl", "folderId", "tags", "redirectType",
  "passQuery", "openInApp", "openInBrowser", "utm", "geoRules", "deviceRules", "expiresAt", "expiredUrl", "abTest",
  "hasPassword", "createdAt", "updatedAt"
] as const satisfies ReadonlyArray<keyof Link>

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  return JSON.stringify(value)
}

export const exportCells = (link: Link): Array<string> => EXPORT_COLUMNS.map((column) => neutraliseFormula(cell(link[column])))
