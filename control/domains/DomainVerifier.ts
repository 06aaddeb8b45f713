import { Context, Data, Effect, Layer } from "effect"
import { pollLoop } from "../jobs/pollLoop.ts"
import { countDomainCheck } from "../ops/metrics.ts"
import { DnsSettings } from "../kernel/DnsSettings.ts"
import { DomainSettings } from "./DomainSettings.ts"
import type { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { makeDnsLookup } from "./dnsLookup.ts"
import { DomainRepository } from "./DomainRepository.ts"
import type { DomainRow } from "./domainRow.ts"
import { type DnsAnswers, type DnsTargets, evaluate, expectedRecords, nextState } from "./verification.ts"

/** The DNS lookup itself failed (not a DNS answer: those, errors included, are answers evaluate reads). */
export class DnsLookupError extends Data.TaggedError("DnsLookupError")<{ readonly cause: unknown }> {}

/** Every query unanswered: the check fails like a DNS outage, and nextState's grace period protects a verified domain. */
const unanswered = (code: string): DnsAnswers => {
  const failed = { ok: false as const, code }
  return { txt: failed, cname: failed, a: failed, targetA: failed }
}

export interface CheckOutcome {
  readonly row: DomainRow | undefined
  readonly ok: boolean
  readonly reason: string
}

/** Checks a custom domain's DNS and stores the outcome; used by the verify endpoint and the job. */
export class DomainVerifier extends Context.Service<DomainVerifier, {
  readonly targets: DnsTargets
  readonly check: (row: DomainRow) => Effect.Effect<CheckOutcome, DatabaseUnavailable>
}>()("ricochet/DomainVerifier") {}

export const DomainVerifierLayer = Layer.effect(DomainVerifier)(Effect.gen(function*() {
  const { cnameTarget, aTarget, domainGraceHours, domainRecheckSeconds } = yield* DomainSettings
  const { dnsServers } = yield* DnsSettings
  const domains = yield* DomainRepository
  const lookup = makeDnsLookup(dnsServers)
  const targets: DnsTargets = { cnameTarget, aTarget }
  const graceMs = domainGraceHours * 3_600_000
  return DomainVerifier.of({
    targets,
    check: (row) =>
      Effect.gen(function*() {
        const records = expectedRecords(row.host, row.verification_token, targets)
        // Each query's failure is already an answer (its error code); a rejection of the whole
        // lookup is unexpected and is logged, then read as no answer at all.
        const answers = yield* Effect.tryPromise({
          try: () => lookup(row.host, records[0].name, targets.cnameTarget),
          catch: (cause) => new DnsLookupError({ cause })
        }).pipe(
          Effect.catchTag("DnsLookupError", (error) =>
            Effect.as(Effect.logWarning(`DNS lookup for ${row.host} failed`, error.cause), unanswered("EUNKNOWN")))
        )
        const { ok, reason } = evaluate(records, answers)
        const updated = yield* domains.recordCheck(row.id, (current) => nextState(current, ok, new Date(), graceMs), reason, domainRecheckSeconds)
        yield* countDomainCheck(ok ? "ok" : "wrong")
        return { row: updated, ok, reason }
      })
  })
}))

/**
 * Re-checks every custom domain on its schedule (RICOCHET_DOMAIN_RECHECK_SECONDS), so a fix
 * at the DNS provider is picked up without a verify call. Domains are claimed with a lease, so
 * with several control processes each domain is checked by one of them at a time.
 */
export const DomainCheckJob = Layer.effectDiscard(Effect.gen(function*() {
  const { domainRecheckSeconds } = yield* DomainSettings
  const domains = yield* DomainRepository
  const verifier = yield* DomainVerifier
  const tickMs = Math.max(200, Math.min(5_000, (domainRecheckSeconds * 1000) / 3))
  const round = Effect.gen(function*() {
    const due = yield* domains.claimDue(25, 60)
    yield* Effect.forEach(due, (row) => verifier.check(row), { concurrency: 5, discard: true })
    return "idle" as const
  })
  yield* pollLoop("domain checks", round, { idleMs: tickMs })
}))
