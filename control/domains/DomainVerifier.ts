import { Context, Effect, Layer } from "effect"
import { Configuration } from "../../shared/config.ts"
import { Database } from "../../shared/db/Database.ts"
import { makeDnsLookup } from "./dnsLookup.ts"
import { claimDueDomains, type DomainRow, recordCheck } from "./repository.ts"
import { type DnsTargets, evaluate, expectedRecords, nextState } from "./verification.ts"

export interface CheckOutcome {
  readonly row: DomainRow | undefined
  readonly ok: boolean
  readonly reason: string
}

/** Checks a custom domain's DNS and stores the outcome; used by the verify endpoint and the job. */
export class DomainVerifier extends Context.Service<DomainVerifier, {
  readonly targets: DnsTargets
  readonly check: (row: DomainRow) => Promise<CheckOutcome>
}>()("ricochet/DomainVerifier") {}

export const DomainVerifierLayer = Layer.effect(DomainVerifier)(Effect.gen(function*() {
  const config = yield* Configuration
  const { sql } = yield* Database
  const lookup = makeDnsLookup(config.dnsServers)
  const targets: DnsTargets = { cnameTarget: config.cnameTarget, aTarget: config.aTarget }
  const graceMs = config.domainGraceHours * 3_600_000
  return DomainVerifier.of({
    targets,
    check: async (row) => {
      const records = expectedRecords(row.host, row.verification_token, targets)
      const answers = await lookup(row.host, records[0].name, targets.cnameTarget)
      const { ok, reason } = evaluate(records, answers)
      const updated = await recordCheck(sql, row.id, (current) => nextState(current, ok, new Date(), graceMs), reason, config.domainRecheckSeconds)
      return { row: updated, ok, reason }
    }
  })
}))

/**
 * Re-checks every custom domain on its schedule (RICOCHET_DOMAIN_RECHECK_SECONDS), so a fix
 * at the DNS provider is picked up without a verify call. Domains are claimed with a lease, so
 * with several control processes each domain is checked by one of them at a time.
 */
export const DomainCheckJob = Layer.effectDiscard(Effect.gen(function*() {
  const { sql } = yield* Database
  const config = yield* Configuration
  const verifier = yield* DomainVerifier
  const tickMs = Math.max(200, Math.min(5_000, (config.domainRecheckSeconds * 1000) / 3))
  const round = Effect.gen(function*() {
    const due = yield* Effect.promise(() => claimDueDomains(sql, 25, 60))
    yield* Effect.forEach(due, (row) => Effect.promise(() => verifier.check(row)), { concurrency: 5, discard: true })
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("domain check round failed", cause)))
  yield* Effect.forkScoped(Effect.forever(Effect.andThen(round, Effect.sleep(tickMs))))
}))
