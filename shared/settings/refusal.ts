import { Config, Schema, SchemaIssue } from "effect"

/**
 * A variable's value refused: effect's ConfigError pointing at the variable, with the detail an
 * operator reads (`must be a port number from 0 to 65535 (got "abc")`) as its message.
 */
export const refusal = (variable: string, detail: string): Config.ConfigError =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.Pointer([variable], new SchemaIssue.InvalidValue({ message: detail }))))

/**
 * The variable and detail of a refusal, for the one line start-up prints. A ConfigError made
 * elsewhere (a source that could not be read) keeps its own text, on one line.
 */
export const refusedVariable = (error: Config.ConfigError): { readonly variable: string; readonly detail: string } => {
  const cause = error.cause
  if (Schema.isSchemaError(cause) && cause.issue._tag === "Pointer" && cause.issue.path.length === 1) {
    const [variable] = cause.issue.path
    const inner = cause.issue.issue
    const message = inner._tag === "InvalidValue" ? inner.annotations?.message : undefined
    if (typeof variable === "string" && typeof message === "string") return { variable, detail: message }
  }
  return { variable: "configuration", detail: error.message.replace(/\s*[\r\n]+\s*/g, " ") }
}
