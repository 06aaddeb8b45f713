import { Schema } from "effect"

const Role = Schema.Literals(["admin", "member"])
const Scope = Schema.Literals(["all", "read"])

/** A key as listings show it: never the key itself, only a prefix to tell keys apart. */
export const ApiKey = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  role: Role,
  scope: Scope,
  createdBy: Schema.NullOr(Schema.Struct({ id: Schema.String, email: Schema.NullOr(Schema.String) })),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ApiKey" })

/** A new key: the listing's fields and `key`, shown this once. */
export const CreatedApiKey = Schema.Struct({ ...ApiKey.fields, key: Schema.String }).annotate({ identifier: "CreatedApiKey" })

export const ApiKeyCreate = Schema.Struct({
  name: Schema.String.check(
    Schema.isBetweenCodePoints(1, 100),
    Schema.makeFilter((s: string) => s.trim() !== "" || "Expected a name that is not blank", { expected: "a name that is not blank" })
  ),
  role: Role,
  scope: Schema.optionalKey(Scope)
}).annotate({ identifier: "ApiKeyCreate" })

export const ApiKeyList = Schema.Struct({ data: Schema.Array(ApiKey) })
