import { SchemaIssue } from "effect"
import type { FieldIssue } from "./failure.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A payload the declaration's schema refused before it was sent, as the field issues a 422 would
 * name: Effect's own Standard Schema formatting (the server's richer one, control/kernel/issues.ts,
 * stays on the server), without the input repeated, each message once per field.
 */
export const fieldIssuesOf = (issue: SchemaIssue.Issue): Array<FieldIssue> => {
  let formatted: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined }>
  try {
    formatted = formatter(issue).issues
  } catch {
    formatted = [{ message: "Invalid value" }]
  }
  const seen = new Set<string>()
  const out: Array<FieldIssue> = []
  for (const item of formatted) {
    const path = (item.path ?? []).map((p) => {
      const key = typeof p === "object" ? p.key : p
      return typeof key === "number" ? key : String(key)
    })
    const message = item.message.replace(/, got [\s\S]*$/, "")
    const id = `${path.join(".")}\u0000${message}`
    if (seen.has(id)) continue
    seen.add(id)
    out.push({ path, message, code: "invalid_value" })
  }
  return out
}
