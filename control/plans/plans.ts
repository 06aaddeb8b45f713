import { LimitReached, PlanRequired } from "../api/errors.ts"

export const PLANS = ["free", "basic", "pro", "business"] as const
export type Plan = (typeof PLANS)[number]

const RANK: Record<Plan, number> = { free: 0, basic: 1, pro: 2, business: 3 }

/**
 * Everything a plan grants, in one table. `limit_reached` and the analytics history read from
 * here; docs/api.md and docs/decisions.md document the same numbers.
 */
export const PLAN_LIMITS: Record<Plan, {
  readonly links: number
  readonly tags: number
  readonly folders: number
  readonly customDomains: number
  readonly analyticsHistoryDays: number
}> = {
  free: { links: 1_000, tags: 25, folders: 3, customDomains: 1, analyticsHistoryDays: 30 },
  basic: { links: 10_000, tags: 100, folders: 10, customDomains: 3, analyticsHistoryDays: 365 },
  pro: { links: 100_000, tags: 500, folders: 50, customDomains: 10, analyticsHistoryDays: 3 * 365 },
  business: { links: 1_000_000, tags: 2_000, folders: 200, customDomains: 100, analyticsHistoryDays: 5 * 365 }
}

export const atLeast = (plan: Plan, needed: Plan): boolean => RANK[plan] >= RANK[needed]

/** The API as a whole is a Pro feature. */
export const API_PLAN: Plan = "pro"

export const requirePlan = (plan: Plan, needed: Plan, what: string): PlanRequired | undefined =>
  atLeast(plan, needed)
    ? undefined
    : new PlanRequired({ message: `${what} needs the ${needed} plan or higher; this workspace is on ${plan}` })

export type LimitedResource = "links" | "tags" | "folders" | "customDomains"

export const limitReached = (plan: Plan, resource: LimitedResource): LimitReached =>
  new LimitReached({
    message: `The ${plan} plan allows ${PLAN_LIMITS[plan][resource].toLocaleString("en-US")} ${resource === "customDomains" ? "custom domains" : resource}; remove some or upgrade`
  })
