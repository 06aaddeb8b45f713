import { ApiError } from "../kernel/errors.ts"

/** 404: no folder with that id in the workspace. */
export class FolderNotFound extends ApiError<FolderNotFound>()("FolderNotFound", {
  code: "not_found",
  description: "No such folder in this workspace"
}) {
  static readonly make = (): FolderNotFound => new FolderNotFound({ message: "Folder not found" })
}

/** 409: the workspace already has a folder of that name (names compare case-insensitively). */
export class FolderNameTaken extends ApiError<FolderNameTaken>()("FolderNameTaken", {
  code: "conflict",
  description: "A folder of that name already exists (case-insensitively)"
}) {
  static readonly of = (name: string): FolderNameTaken => new FolderNameTaken({ message: `A folder named ${JSON.stringify(name)} already exists` })
}
