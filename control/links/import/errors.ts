import { ApiError, LimitReached } from "../../kernel/errors.ts"
import { MAX_UNFINISHED_IMPORTS } from "./schema.ts"

/** 404: no import job with that id in the workspace. */
export class ImportNotFound extends ApiError<ImportNotFound>()("ImportNotFound", {
  code: "not_found",
  description: "No such import job in this workspace"
}) {
  static readonly make = (): ImportNotFound => new ImportNotFound({ message: "Import job not found" })
}

/** 409: cancelling an import that is done: nothing is left to stop. */
export class ImportFinished extends ApiError<ImportFinished>()("ImportFinished", {
  code: "conflict",
  description: "The import job is done; there is nothing left to cancel"
}) {
  static readonly make = (): ImportFinished => new ImportFinished({ message: "The import is done; there is nothing left to cancel" })
}

/** 409: an upload with this Idempotency-Key is still being stored by an earlier request. */
export class ImportUploading extends ApiError<ImportUploading>()("ImportUploading", {
  code: "conflict",
  description: "An upload with this Idempotency-Key is still being stored; retry in a few seconds to get its job"
}) {
  static readonly make = (): ImportUploading =>
    new ImportUploading({ message: "An upload with this Idempotency-Key is still being stored; retry in a few seconds to get its job" })
}

/** 403 limit_reached: the workspace has as many unfinished imports as it may. */
export const tooManyImports = (): LimitReached =>
  new LimitReached({
    message: `This workspace has ${MAX_UNFINISHED_IMPORTS} imports queued or running, the most it may have; ` +
      "wait for one to finish, or cancel one with DELETE /v1/links/import/{id}"
  })
