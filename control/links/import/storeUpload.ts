import { Effect, Exit } from "effect"
import type { HttpServerRequest } from "effect/http"
import { BadRequest, ValidationFailed } from "../../kernel/errors.ts"
import type { ImportJobRepository } from "./ImportJobRepository.ts"
import { parseUpload } from "./parseUpload.ts"

/** Pieces stored at once: one compresses on libuv's threads while the other is written. */
const STORE_CONCURRENCY = 2

/**
 * The upload's Idempotency-Key, if it sent one: 1 to 255 printable ASCII characters, like the
 * UUIDs clients use.
 */
export const idempotencyKeyOf = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string | undefined, BadRequest> => {
  const key = request.headers["idempotency-key"]
  if (key === undefined) return Effect.succeed(undefined)
  return /^[\x20-\x7e]{1,255}$/.test(key) && key.trim() !== ""
    ? Effect.succeed(key)
    : Effect.fail(new BadRequest({ message: "The Idempotency-Key header must be 1 to 255 printable ASCII characters" }))
}

/**
 * Parses a reserved upload's file and stores it, a piece a statement, then publishes the job.
 * Whatever stops it before that (a bad file, the database, the client gone) removes what it
 * stored: no half-stored job is ever claimed, and a retry starts afresh.
 */
export const storeUpload = (imports: ImportJobRepository["Service"], jobId: string, text: string) =>
  Effect.gen(function*() {
    const upload = yield* parseUpload(text).pipe(
      Effect.mapError((problem) => (problem.kind === "unreadable" ? new BadRequest({ message: problem.message }) : ValidationFailed.at(["file"], problem.message)))
    )
    yield* Effect.forEach(upload.pieces, (piece) => imports.storePiece(jobId, piece), { concurrency: STORE_CONCURRENCY, discard: true })
    return yield* imports.publish(jobId, upload)
  }).pipe(
    // A database that is down leaves the rest to the runners' sweep of abandoned uploads.
    Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.ignore(imports.discard(jobId))))
  )
