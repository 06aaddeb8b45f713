import { Effect, Schema, SchemaAST, SchemaIssue, SchemaTransformation } from "effect"
import { coerce } from "./coerce.ts"
import { type FormFields, formTree } from "./formTree.ts"

/** A form body as effect/http-api hands it to a payload schema: fields by name, a repeated name as an array. */
const Fields = Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Array(Schema.String)]))

/**
 * The payload schema of a form body (urlencoded or multipart) whose fields decode to `schema`:
 * bracket notation read into a tree (formTree.ts), its text turned into what `schema` expects at
 * each place (coerce.ts), then `schema` itself, so a form and the equivalent JSON give the same
 * value and the same issues. The library decodes with it; the typed client sends JSON.
 */
export const formBody = <S extends Schema.Top>(schema: S) => {
  const type = SchemaAST.toType(schema.ast)
  return Fields.pipe(Schema.decodeTo(
    schema as Schema.Top,
    SchemaTransformation.transformEffect<unknown, FormFields>({
      decode: (fields) => Effect.succeed(coerce(type, formTree(fields))),
      encode: (value) => Effect.fail(new SchemaIssue.Forbidden({ message: "Form bodies are read, not written: send JSON" }, value))
    })
  )) as unknown as S
}
