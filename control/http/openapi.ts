import { Schema } from "effect"
import { ERROR_STATUS, UNAVAILABLE_RETRY_AFTER_SECONDS } from "./ApiError.ts"
import type { Route } from "./route.ts"

type Json = Record<string, any>

const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literals(Object.keys(ERROR_STATUS) as [string, ...Array<string>]),
    message: Schema.String,
    issues: Schema.optionalKey(Schema.Array(Schema.Struct({
      path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
      message: Schema.String,
      code: Schema.String
    })))
  })
}).annotate({ identifier: "Error" })

const rewriteRefs = (value: unknown, closed: boolean): any => {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, closed))
  if (value === null || typeof value !== "object") return value
  const out: Json = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string") out[key] = inner.replace("#/$defs/", "#/components/schemas/")
    // Request bodies reject unknown fields; say so in the document too.
    else if (key === "additionalProperties" && closed && inner === true) out[key] = false
    else out[key] = rewriteRefs(inner, closed)
  }
  return out
}

/**
 * The OpenAPI 3.1 description of the API, generated from the route table: the same Schemas that
 * validate requests describe them here.
 */
export const openApiDocument = (routes: ReadonlyArray<Route>, serverUrl?: string): Json => {
  const schemas: Json = {}
  const toSchema = (schema: Schema.Top, closed: boolean): Json => {
    const doc = Schema.toJsonSchemaDocument(schema)
    for (const [name, definition] of Object.entries(doc.definitions)) schemas[name] = rewriteRefs(definition, closed)
    return rewriteRefs(doc.schema, closed)
  }
  const parameters = (schema: Schema.Top | undefined, location: "path" | "query"): Array<Json> => {
    if (schema === undefined) return []
    const resolved = toSchema(schema, false)
    const object = resolved.$ref ? schemas[resolved.$ref.split("/").pop()] : resolved
    const required = new Set<string>(object.required ?? [])
    return Object.entries<Json>(object.properties ?? {}).map(([name, s]) => ({
      name,
      in: location,
      required: location === "path" || required.has(name),
      ...(location === "query" && (s.type === "array" || s.anyOf) ? { style: "form", explode: true } : {}),
      schema: s
    }))
  }
  const errorRef = { $ref: "#/components/schemas/Error" }
  toSchema(ErrorBody, false)
  const paths: Json = {}
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}")
    const errors: Json = {}
    for (const status of new Set(Object.values(ERROR_STATUS))) {
      errors[String(status)] = { description: `Error (${Object.entries(ERROR_STATUS).filter(([, s]) => s === status).map(([c]) => c).join(", ")})`, content: { "application/json": { schema: errorRef } } }
    }
    errors["503"] = {
      description: `The database is unavailable (internal_server_error); retry after Retry-After (${UNAVAILABLE_RETRY_AFTER_SECONDS} s)`,
      headers: { "Retry-After": { schema: { type: "integer" } } },
      content: { "application/json": { schema: errorRef } }
    }
    const body = route.body === undefined ? undefined : toSchema(route.body, true)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = {
      tags: [route.group],
      summary: route.summary,
      operationId: `${route.group}.${route.method.toLowerCase()}${path.replace(/[{}/]+(\w)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      security: [{ bearerAuth: [] }],
      parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
      ...(body === undefined ? {} : {
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: body },
            "application/x-www-form-urlencoded": { schema: body },
            "multipart/form-data": { schema: body }
          }
        }
      }),
      responses: {
        [String(route.status)]: { description: "Success", content: { "application/json": { schema: toSchema(route.success, false) } } },
        ...errors
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Ricochet API",
      version: "1.0.0",
      description: "Short links, tags, folders, domains and click analytics. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds); a 429 also carries Retry-After, and so does a 503 (the database is unavailable)."
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An API key: rico_ followed by base62 characters" } },
      schemas
    },
    paths
  }
}
