import { Effect } from "effect"
import type { TransactionSql } from "postgres"
import { run } from "../db/sql.ts"
import { type LimitedResource, limitReached, PLAN_LIMITS, type Plan } from "../kernel/plans.ts"

/** The workspace a write acts in, and its plan. */
export interface Scope {
  readonly workspaceId: string
  readonly plan: Plan
}

/**
 * Inside a transaction that creates `resource`s: serialises the workspace's creates of that kind
 * (so two transactions cannot both pass the limit) and counts what exists once. `check` then fails
 * with LimitReached once the plan's limit is reached; `taken` counts a create of this transaction.
 */
export const quotaOf = (tx: TransactionSql, scope: Scope, resource: LimitedResource, count: () => PromiseLike<ReadonlyArray<{ n: number }>>) =>
  Effect.gen(function*() {
    yield* run(() => tx`SELECT pg_advisory_xact_lock(hashtext(${`${resource}:${scope.workspaceId}`}))`)
    const [{ n }] = yield* run(count)
    let used = n
    return {
      check: Effect.suspend(() => (used >= PLAN_LIMITS[scope.plan][resource] ? Effect.fail(limitReached(scope.plan, resource)) : Effect.void)),
      taken: () => {
        used++
      }
    }
  })

/** One create's quota: fails with LimitReached when the plan's limit is reached (see quotaOf). */
export const ensureQuota = (tx: TransactionSql, scope: Scope, resource: LimitedResource, count: () => PromiseLike<ReadonlyArray<{ n: number }>>) =>
  Effect.flatMap(quotaOf(tx, scope, resource, count), (quota) => quota.check)
