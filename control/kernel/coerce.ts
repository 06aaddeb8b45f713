import type { SchemaAST } from "effect"
import { jsonShapeProblem } from "./limits.ts"

/**
 * Form values are all text; the schema at each place says what they mean: `true`/`false` are
 * booleans and numbers are numbers where it expects them, an empty value for a nullable field is
 * null (`tagIds=` clears a list), one plain value for an array field is an array of one, and a
 * JSON array or object in a field that expects one is parsed (`geoRules=[{"country":"US",…}]`).
 * Anything else stays as sent, for the schema to refuse with the field's own issue.
 */

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
