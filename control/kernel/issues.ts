import { SchemaIssue } from "effect"
import type { FieldIssue } from "./errors.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const CODE_BY_TAG: Record<string, string> = {
  MissingKey: "required",
  UnexpectedKey: "unknown_field",
  InvalidType: "invalid_type",
  InvalidValue: "invalid_value",
  Filter: "invalid_value",
  AnyOf: "invalid_type",
  OneOf: "invalid_value",
  Forbidden: "invalid_value"
}

// Messages never repeat the input: it may be a password, and clients already have it.
const withoutInput = (message: string): string => message.replace(/, got [\s\S]*$/, "")

const toKey = (key: PropertyKey): string | number => (typeof key === "number" ? key : String(key))

const leaf = (issue: SchemaIssue.Issue, path: ReadonlyArray<string | number>, out: Array<FieldIssue>): void => {
  const code = CODE_BY_TAG[issue._tag] ?? "invalid_value"
  if (issue._tag === "MissingKey") {
    out.push({ path, message: "Required", code })
    return
  }
  if (issue._tag === "UnexpectedKey") {
    out.push({ path, message: "Unknown field", code })
    return
  }
  let formatted: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined }>
  try {
    formatted = formatter(issue).issues
  } catch {
    formatted = [{ message: "Invalid value" }]
  }
  for (const item of formatted) {
    const rest = (item.path ?? []).map((p) => toKey(typeof p === "object" ? p.key : p))
    out.push({ path: [...path, ...rest], message: withoutInput(item.message), code })
  }
}

const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<string | number>, out: Array<FieldIssue>): void => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path.map(toKey)], out)
    case "Composite":
      for (const inner of issue.issues) walk(inner, path, out)
      return
    case "Encoding":
      return walk(issue.issue, path, out)
    case "AnyOf":
      // A nullable field (`X | null`) that fails inside X: report X's issues with their own codes.
      if (issue.issues.length > 0) {
        for (const inner of issue.issues) walk(inner, path, out)
        return
      }
      return leaf(issue, path, out)
    default:
      return leaf(issue, path, out)
  }
}

/** Flattens a Schema issue tree into the `issues` items of a 422: `{ path, message, code }`. */
export const toFieldIssues = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<string | number> = []): Array<FieldIssue> => {
  const out: Array<FieldIssue> = []
  walk(issue, prefix, out)
  return out
}
