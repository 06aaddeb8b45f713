/**
 * Bounds on the shape of a request, checked before anything walks it: a 300 KB form key nested
 * 100,000 levels once grew control's heap past 4 GB, and deep JSON overflowed the stack of the
 * Schema decoder. The deepest legitimate shape is `abTest.variants[0].url` (3 levels below the
 * top), the largest 250 geo rules (750 values); the bounds leave room above both.
 */

/** Levels of nesting below the top-level object: `a[b][c][d][e][f]` in a form, as deep in JSON. */
export const MAX_DEPTH = 5
/** Fields of a form body or query string (`name=value` pairs). */
export const MAX_FORM_FIELDS = 1000
/** Items of one array in a form (`tagIds[]`, a repeated key, or the highest index plus one). */
export const MAX_FORM_ARRAY_ITEMS = 300
/** Array items and object members of a JSON body, all levels together. */
export const MAX_JSON_VALUES = 10_000

const SPACE = 32, TAB = 9, LF = 10, CR = 13, QUOTE = 34, BACKSLASH = 92, COMMA = 44
const OPEN_ARRAY = 91, CLOSE_ARRAY = 93, OPEN_OBJECT = 123, CLOSE_OBJECT = 125

/**
 * Why a JSON text is refused before it is parsed, or undefined. One pass over the characters:
 * nesting depth, and the values counted as the members and items that commas separate. Invalid
 * JSON is left for JSON.parse to report.
 */
export const jsonShapeProblem = (text: string): string | undefined => {
  let depth = 0
  let values = 0
  let inString = false
  let escaped = false
  let justOpened = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (escaped) escaped = false
      else if (c === BACKSLASH) escaped = true
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === SPACE || c === TAB || c === LF || c === CR) continue
    // The first value of a container has no comma before it.
    if (justOpened && c !== CLOSE_ARRAY && c !== CLOSE_OBJECT) values++
    justOpened = false
    if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      // The top-level object is depth 1.
      if (++depth > MAX_DEPTH + 1) return `The JSON body nests deeper than ${MAX_DEPTH} levels`
      justOpened = true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
    } else if (c === COMMA) {
      values++
    }
    if (values > MAX_JSON_VALUES) return `The JSON body holds more than ${MAX_JSON_VALUES} values`
  }
  return undefined
}

/** What qs reports when a bound is passed, in words for a client. */
export const formLimitMessage = (error: unknown, what: "form body" | "query string"): string | undefined => {
  const message = error instanceof Error ? error.message : ""
  if (/depth/i.test(message)) return `The ${what} nests deeper than ${MAX_DEPTH} levels`
  if (/parameter limit/i.test(message)) return `The ${what} has more than ${MAX_FORM_FIELDS} fields`
  if (/array limit/i.test(message)) return `The ${what} has an array of more than ${MAX_FORM_ARRAY_ITEMS} items`
  return undefined
}
