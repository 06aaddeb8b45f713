import qs from "qs"
import { MAX_DEPTH, MAX_FORM_ARRAY_ITEMS, MAX_FORM_FIELDS } from "./limits.ts"

/**
 * Bracket notation in form bodies and query strings, as docs/decisions.md#request-bodies describes
 * it: `geoRules[0][country]=US`, `utm[source]=x`, `tagIds[]=a` or a repeated `tagIds`. Read by qs
 * (effect/http-api reads forms flat), within the bounds of limits.ts, and never onto a prototype:
 * `__proto__`, `constructor`, `toString`… are dropped. Every leaf stays a string; coerce.ts turns
 * them into what the schema expects.
 */

export type FormTree = string | Array<FormTree> | { [key: string]: FormTree }

/** Form fields as effect/http-api hands them over: each name once, a repeated name as an array. */
export type FormFields = Readonly<Record<string, string | ReadonlyArray<string>>>

/** The qs options of every form and query string: the bounds, thrown when passed (a 400, not a silent cut). */
export const FORM_OPTIONS = {
  depth: MAX_DEPTH,
  strictDepth: true,
  parameterLimit: MAX_FORM_FIELDS,
  arrayLimit: MAX_FORM_ARRAY_ITEMS,
  throwOnLimitExceeded: true,
  allowPrototypes: false
} as const

/**
 * The nested shape of fields already split and decoded. Their bounds were checked when the request
 * was read (control/http/formText.ts), so this reads them as qs reads the text they came from.
 */
export const formTree = (fields: FormFields): Record<string, FormTree> =>
  // qs reads an object of fields as it reads the text they came from (its types say strings only).
  qs.parse(fields as unknown as Record<string, string>, FORM_OPTIONS) as Record<string, FormTree>
