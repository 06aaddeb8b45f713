import { Effect, Schema } from "effect"
import { type FieldIssue, ValidationFailed } from "../kernel/errors.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import type { Principal } from "../kernel/Principal.ts"
import { input, PAYLOAD_OPTIONS } from "../kernel/RequestChecks.ts"
import { toFieldIssues } from "../kernel/issues.ts"
import { checkLinkPlan } from "./linkInput.ts"
import type { LinkRepository } from "./LinkRepository.ts"
import { toLink } from "./linkRow.ts"
import { type Link, LinkCreate, type LinkUpdate } from "./schema.ts"
import type { LinkBase } from "../../shared/links/shortLink.ts"

/** A client-facing failure: every ApiError has these. */
interface Failure {
  readonly _tag: string
  readonly code: string
  readonly status: number
  readonly message: string
  readonly issues?: ReadonlyArray<FieldIssue> | undefined
}

/** What a failed item reports: the status and error body a single call would have answered. */
export interface ItemFailure {
  readonly index: number
  readonly status: number
  readonly error: { readonly code: string; readonly message: string; readonly issues?: ReadonlyArray<FieldIssue> }
}

const failureOf = (index: number, error: Failure): ItemFailure => ({
  index,
  status: error.status,
  error: error.issues === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, issues: error.issues }
})

/**
 * Runs one item; a domain failure becomes its outcome. The database being unavailable is no
 * item's fault: it fails the whole request with a 503 (the items done so far stay done).
 */
const settle = <A, B, E extends Failure>(
  index: number,
  work: Effect.Effect<A, E | DatabaseUnavailable>,
  onSuccess: (value: A) => B
): Effect.Effect<B | ItemFailure, DatabaseUnavailable> =>
  work.pipe(
    Effect.map(onSuccess),
    Effect.catch((error: E | DatabaseUnavailable) =>
      error._tag === "DatabaseUnavailable" ? Effect.fail(error as DatabaseUnavailable) : Effect.succeed(failureOf(index, error as E))
    )
  )

const decodeCreate = Schema.decodeUnknownEffect(input(LinkCreate), PAYLOAD_OPTIONS)

/** One item of a bulk create, validated exactly as POST /v1/links validates its body. */
export const decodeLinkCreate = (item: unknown): Effect.Effect<LinkCreate, ValidationFailed> =>
  item === null || typeof item !== "object" || Array.isArray(item)
    ? Effect.fail(ValidationFailed.at([], "Expected a link object", "invalid_type"))
    : Effect.mapError(decodeCreate(item) as Effect.Effect<LinkCreate, Schema.SchemaError>, (error) => ValidationFailed.of(toFieldIssues(error.issue)))


/** Creates each link on its own, in order, as POST /v1/links would: plan gates and quota included. */
export const bulkCreate = (links: LinkRepository["Service"], principal: Principal, items: ReadonlyArray<unknown>, base: LinkBase) =>
  Effect.forEach(items, (item, index) =>
    settle(
      index,
      Effect.gen(function*() {
        const link = yield* decodeLinkCreate(item)
        const denied = checkLinkPlan(principal.plan, link)
        if (denied !== undefined) return yield* denied
        return yield* links.create(principal, link)
      }),
      (row): { index: number; status: number; link: Link } => ({ index, status: 201, link: toLink(row, base) })
    ))

/** Sets the same fields on each link, one at a time; an id that is not the workspace's is that item's 404. */
export const bulkUpdate = (links: LinkRepository["Service"], principal: Principal, ids: ReadonlyArray<string>, fields: LinkUpdate, base: LinkBase) =>
  Effect.forEach(ids, (id, index) =>
    settle(index, links.update(principal, id, fields), (row): { index: number; status: number; link: Link } => ({ index, status: 200, link: toLink(row, base) })))

/** Deletes each link on its own. */
export const bulkDelete = (links: LinkRepository["Service"], workspaceId: string, ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id, index) =>
    settle(index, links.remove(workspaceId, id), () => ({ index, status: 200, id })).pipe(
      Effect.map((outcome) => ("error" in outcome ? { ...outcome, id } : outcome))
    ))
