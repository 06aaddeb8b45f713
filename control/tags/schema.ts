import { Schema } from "effect"

export const TAG_COLORS = ["blue", "teal", "purple", "pink"] as const
export const TagColor = Schema.Literals(TAG_COLORS)

const TagName = Schema.String.check(
  Schema.isBetweenCodePoints(1, 32),
  Schema.makeFilter((s: string) => s.trim() !== "" || "Expected a name that is not blank", { expected: "a name that is not blank" })
)

export const Tag = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  color: Schema.NullOr(TagColor),
  createdAt: Schema.String
}).annotate({ identifier: "Tag" })
export type Tag = typeof Tag.Type

export const TagCreate = Schema.Struct({
  name: TagName,
  color: Schema.optionalKey(TagColor)
}).annotate({ identifier: "TagCreate" })

export const TagUpdate = Schema.Struct({
  name: Schema.optionalKey(TagName),
  color: Schema.optionalKey(Schema.NullOr(TagColor))
}).annotate({ identifier: "TagUpdate" })

export const TagList = Schema.Struct({ data: Schema.Array(Tag) })
