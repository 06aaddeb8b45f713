import { ApiError } from "../../api/errors.ts"

/** 404: no import job with that id in the workspace. */
export class ImportNotFound extends ApiError<ImportNotFound>()("ImportNotFound", {
  code: "not_found",
  status: 404,
  description: "No such import job in this workspace"
}) {
  static readonly make = (): ImportNotFound => new ImportNotFound({ message: "Import job not found" })
}
