import { Effect } from "effect"
import type { TransactionSql } from "postgres"
import { run } from "../db/sql.ts"
import { type LimitedResource, limitReached, PLAN_LIMITS, type Plan } from "./plans.ts"

/** The workspace a write acts in, and its plan. */
export interface Scope {
  readonly workspaceId: string
  readonly plan: Plan
}

/**
 * Inside a create's transaction: serialises the workspace's creates of one kind (so two at once
 * cannot both pass the limit), then fails with LimitReached when `count` has reached the plan's.
 */
export const ensureQuota = (tx: TransactionSql, scope: Scope, resource: LimitedResource, count: () => PromiseLike<ReadonlyArray<{ n: number }>>) =>
  Effect.gen(function*() {
    yield* run(() => tx`SELECT pg_advisory_xact_lock(hashtext(${`${resource}:${scope.workspaceId}`}))`)
    const [{ n }] = yield* run(count)
    if (n >= PLAN_LIMITS[scope.plan][resource]) return yield* limitReached(scope.plan, resource)
  })
