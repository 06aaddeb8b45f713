import { describe, expect, it } from "vitest"
import { openApiDocument } from "../../control/http/openapi.ts"
import { apiRoutes } from "../../control/http/routes.ts"

describe("openApiDocument", () => {
  const document = openApiDocument(apiRoutes) as { paths: Record<string, Record<string, { responses: Record<string, any> }>> }
  const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })))

  it.each(operations.map(({ name, op }) => [name, op] as const))("%s documents the 503 a database outage answers, with Retry-After", (_name, op) => {
    expect(op.responses["503"]).toMatchObject({
      headers: { "Retry-After": expect.any(Object) },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
    })
  })
})
