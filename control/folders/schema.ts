import { Schema } from "effect"

const FolderName = Schema.String.check(
  Schema.isBetweenCodePoints(1, 64),
  Schema.makeFilter((s: string) => s.trim() !== "" || "Expected a name that is not blank", { expected: "a name that is not blank" })
)

export const Folder = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Schema.String
}).annotate({ identifier: "Folder" })
export type Folder = typeof Folder.Type

export const FolderCreate = Schema.Struct({ name: FolderName }).annotate({ identifier: "FolderCreate" })
export const FolderUpdate = Schema.Struct({ name: FolderName }).annotate({ identifier: "FolderUpdate" })
export const FolderList = Schema.Struct({ data: Schema.Array(Folder) })
