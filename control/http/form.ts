import { Predicate, Result, type SchemaAST } from "effect"
import qs from "qs"
import { BadRequest } from "../api/errors.ts"
import { percentDecode } from "./charset.ts"
import { hasLoneSurrogate } from "./nul.ts"
import { formLimitMessage, jsonShapeProblem, MAX_DEPTH, MAX_FORM_ARRAY_ITEMS, MAX_FORM_FIELDS } from "./limits.ts"

/**
 * Form bodies (`x-www-form-urlencoded`, `multipart/form-data`) and query strings as docs/decisions.md#request-bodies
 * describes them: nested values in bracket notation (`geoRules[0][country]=US`, `utm[source]=x`,
 * `tagIds[]=a` or a repeated `tagIds`) or as a JSON string in the field (`geoRules=[{"country":"US",…}]`);
 * `true`/`false` become booleans and numbers are parsed where the schema expects them; an empty
 * value for a nullable field means null. The result is validated by the same Schema as JSON.
 *
 * The brackets are read by qs (effect/http-api reads forms flat, without brackets), within the
 * bounds of limits.ts (a bound passed is a 400, not a silent cut), and never onto a prototype:
 * `__proto__`, `constructor`, `toString`… are dropped.
 */

type Tree = string | Array<Tree> | { [key: string]: Tree }

type FormText = "form body" | "query string"

/**
 * The nested shape of urlencoded text, every leaf still a string. `charset` is what the escapes
 * are bytes of. Past a bound, or with escapes that are not text, a 400.
 */
export const parseFormText = (text: string, what: FormText = "form body", charset = "utf-8"): Result.Result<Record<string, Tree>, BadRequest> => {
  try {
    return Result.succeed(qs.parse(text, {
      depth: MAX_DEPTH,
      strictDepth: true,
      parameterLimit: MAX_FORM_FIELDS,
      arrayLimit: MAX_FORM_ARRAY_ITEMS,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      ignoreQueryPrefix: what === "query string",
      decoder: (part: string) => percentDecode(part, charset)
    }) as Record<string, Tree>)
  } catch (error) {
    // qs throws for a bound passed, the decoder for escapes that are not text; nothing else is expected.
    if (Predicate.isTagged(error, "TextDecodingError")) {
      return Result.fail(new BadRequest({ message: `The ${what} cannot be read: ${(error as unknown as Error).message}` }))
    }
    const limit = formLimitMessage(error, what)
    if (limit !== undefined) return Result.fail(new BadRequest({ message: limit }))
    throw error
  }
}

/** The nested shape of form entries already decoded (multipart fields), as parseFormText reads them. */
export const formEntriesToTree = (
  entries: Iterable<readonly [string, string]>,
  what: FormText = "form body"
): Result.Result<Record<string, Tree>, BadRequest> => {
  const parts: Array<string> = []
  for (const [key, value] of entries) {
    // encodeURIComponent refuses lone surrogates.
    if (hasLoneSurrogate(key) || hasLoneSurrogate(value)) return Result.fail(new BadRequest({ message: `The ${what} holds text that is not Unicode` }))
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
  }
  return parseFormText(parts.join("&"), what)
}

// --- coercion guided by the schema ---------------------------------------------------------

const NUMBER = /^-?\d+(\.\d+)?$/

const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => (ast._tag === "Union" ? ast.types.flatMap(members) : [ast])

const parseJson = (value: string): unknown => {
  // Held to the bounds of a JSON body; past them the field stays text, which validation refuses.
  if (jsonShapeProblem(value) !== undefined) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

const coerceString = (options: ReadonlyArray<SchemaAST.AST>, value: string): unknown => {
  const has = (tag: SchemaAST.AST["_tag"]) => options.some((o) => o._tag === tag)
  if (value === "" && has("Null")) return null
  // `tagIds=` clears a list.
  if (value === "" && options.some((o) => o._tag === "Arrays") && !has("String")) return []
  const structured = options.find((o) => o._tag === "Arrays" || o._tag === "Objects")
  if (structured !== undefined) {
    const trimmed = value.trimStart()
    if (trimmed.startsWith("[") || trimmed.startsWith("{")) return parseJson(value)
    // One plain value for an array field (`tagIds=a`) is an array of one.
    if (structured._tag === "Arrays" && !has("String")) {
      const item = structured.rest[0] ?? structured.elements[0]
      return [item === undefined ? value : coerce(item, value)]
    }
  }
  if (has("Boolean") && (value === "true" || value === "false")) return value === "true"
  const numericLiteral = options.some((o) => o._tag === "Literal" && typeof o.literal === "number")
  if ((has("Number") || numericLiteral) && NUMBER.test(value)) return Number(value)
  return value
}

/** Turns the string leaves of a form tree into the values the schema at that place expects. */
export const coerce = (ast: SchemaAST.AST, value: unknown): unknown => {
  const options = members(ast)
  if (typeof value === "string") return coerceString(options, value)
  if (Array.isArray(value)) {
    const arrays = options.find((o): o is SchemaAST.Arrays => o._tag === "Arrays")
    if (arrays === undefined) return value
    return value.map((item, i) => {
      const itemAst = arrays.elements[i] ?? arrays.rest[0]
      return itemAst === undefined ? item : coerce(itemAst, item)
    })
  }
  if (value !== null && typeof value === "object") {
    const objects = options.find((o): o is SchemaAST.Objects => o._tag === "Objects")
    if (objects === undefined) return value
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      const property = objects.propertySignatures.find((p) => p.name === key)
      const fallback = objects.indexSignatures[0]?.type
      const target = property?.type ?? fallback
      out[key] = target === undefined ? inner : coerce(target, inner)
    }
    return out
  }
  return value
}
