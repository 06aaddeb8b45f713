import { ApiError } from "../kernel/errors.ts"

/** 404: no tag with that id in the workspace. */
export class TagNotFound extends ApiError<TagNotFound>()("TagNotFound", {
  code: "not_found",
  description: "No such tag in this workspace"
}) {
  static readonly make = (): TagNotFound => new TagNotFound({ message: "Tag not found" })
}

/** 409: the workspace already has a tag of that name (names compare case-insensitively). */
export class TagNameTaken extends ApiError<TagNameTaken>()("TagNameTaken", {
  code: "conflict",
  description: "A tag of that name already exists (case-insensitively)"
}) {
  static readonly of = (name: string): TagNameTaken => new TagNameTaken({ message: `A tag named ${JSON.stringify(name)} already exists` })
}
