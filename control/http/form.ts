import type { SchemaAST } from "effect"

/**
 * Form bodies (`x-www-form-urlencoded`, `multipart/form-data`) as design.md describes them:
 * nested values in bracket notation (`geoRules[0][country]=US`, `utm[source]=x`, `tagIds[]=a`
 * or a repeated `tagIds`) or as a JSON string in the field (`geoRules=[{"country":"US",…}]`);
 * `true`/`false` become booleans and numbers are parsed where the schema expects them; an empty
 * value for a nullable field means null. The result is validated by the same Schema as JSON.
 */

type Tree = string | Array<Tree> | { [key: string]: Tree }

/** `a[b][0][]` → `["a", "b", "0", ""]`; a key without brackets is one segment. */
export const parseKey = (key: string): Array<string> => {
  const open = key.indexOf("[")
  if (open <= 0 || !key.endsWith("]")) return [key]
  const segments = [key.slice(0, open)]
  const inner = key.slice(open + 1, -1)
  for (const part of inner.split("][")) {
    if (part.includes("[") || part.includes("]")) return [key]
    segments.push(part)
  }
  return segments
}

const isIndex = (segment: string): boolean => /^\d{1,4}$/.test(segment)

const insert = (container: Record<string, Tree> | Array<Tree>, segments: ReadonlyArray<string>, value: string): void => {
  const [head, ...rest] = segments
  const store = (key: string, next: Tree) => {
    if (Array.isArray(container)) {
      if (key === "") container.push(next)
      else container[Number(key)] = next
    } else {
      container[key] = next
    }
  }
  // Own properties only: `a[constructor][prototype][x]` must not reach Object.prototype.
  const existing = Array.isArray(container)
    ? (head === "" ? undefined : container[Number(head)])
    : Object.hasOwn(container, head) ? container[head] : undefined
  if (rest.length === 0) {
    if (existing === undefined) store(head, value)
    else if (Array.isArray(existing)) existing.push(value)
    // A repeated plain key (`tagIds=a&tagIds=b`) collects its values.
    else if (typeof existing === "string") store(head, [existing, value])
    return
  }
  const wantsArray = rest[0] === "" || isIndex(rest[0])
  let child = existing
  if (child === undefined || typeof child === "string") {
    child = wantsArray ? [] : {}
    store(head, child)
  }
  if (Array.isArray(child) && !wantsArray) {
    // `x[0]=a&x[k]=b` mixes shapes: keep the object reading so validation reports it.
    const asObject: Record<string, Tree> = {}
    child.forEach((v, i) => (asObject[String(i)] = v))
    child = asObject
    store(head, child)
  }
  insert(child as Record<string, Tree> | Array<Tree>, rest, value)
}

const compact = (tree: Tree): Tree => {
  if (typeof tree === "string") return tree
  if (Array.isArray(tree)) return tree.filter((v) => v !== undefined).map(compact)
  const out: Record<string, Tree> = {}
  for (const [k, v] of Object.entries(tree)) out[k] = compact(v)
  return out
}

/** Builds the nested shape from form entries, with every leaf still a string. */
export const formEntriesToTree = (entries: Iterable<readonly [string, string]>): Record<string, Tree> => {
  const root: Record<string, Tree> = Object.create(null)
  for (const [key, value] of entries) {
    if (key === "") continue
    const segments = parseKey(key)
    // `__proto__` at any depth (`a[__proto__][x]`) would write to a prototype: ignored.
    if (segments.includes("__proto__")) continue
    insert(root, segments, value)
  }
  return compact({ ...root }) as Record<string, Tree>
}

// --- coercion guided by the schema ---------------------------------------------------------

const NUMBER = /^-?\d+(\.\d+)?$/

const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => (ast._tag === "Union" ? ast.types.flatMap(members) : [ast])

const parseJson = (value: string): unknown => {
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
