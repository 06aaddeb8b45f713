import type { DnsRecord, DomainStatus } from "./schema.ts"
import { isApex } from "./host.ts"

export const CHALLENGE_PREFIX = "_ricochet-challenge"

export interface DnsTargets {
  readonly cnameTarget: string
  readonly aTarget: string | undefined
}

/**
 * What a customer publishes for a custom host: the ownership token as TXT, and the pointer to
 * the engines (CNAME, or A for an apex). Without a configured A target an apex is verified by
 * its TXT record alone.
 */
export const expectedRecords = (host: string, token: string, targets: DnsTargets): Array<DnsRecord> => {
  const records: Array<DnsRecord> = [{ type: "TXT", name: `${CHALLENGE_PREFIX}.${host}`, value: token }]
  if (!isApex(host)) records.push({ type: "CNAME", name: host, value: targets.cnameTarget })
  else if (targets.aTarget !== undefined) records.push({ type: "A", name: host, value: targets.aTarget })
  return records
}

/** What the DNS answered: a list, or the error code of a failed lookup (ENOTFOUND, ENODATA, …). */
export type Lookup<T> = { readonly ok: true; readonly values: ReadonlyArray<T> } | { readonly ok: false; readonly code: string }

export interface DnsAnswers {
  readonly txt: Lookup<string>
  readonly cname: Lookup<string>
  readonly a: Lookup<string>
  /** A records of the CNAME target, to accept providers that flatten CNAMEs into A records. */
  readonly targetA: Lookup<string>
}

const MISSING = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"])
const normalize = (name: string) => name.toLowerCase().replace(/\.$/, "")
const describe = (code: string) =>
  code === "ETIMEOUT" ? "the DNS query timed out" : code === "ESERVFAIL" ? "the DNS server failed (SERVFAIL)" : `the DNS query failed (${code})`

/** Whether the published records are right, and in plain words what is missing or wrong. */
export const evaluate = (records: ReadonlyArray<DnsRecord>, answers: DnsAnswers): { ok: boolean; reason: string } => {
  const problems: Array<string> = []
  for (const record of records) {
    if (record.type === "TXT") {
      if (!answers.txt.ok) {
        problems.push(MISSING.has(answers.txt.code)
          ? `No TXT record found at ${record.name}; add one with the value ${record.value}`
          : `Could not read the TXT record at ${record.name}: ${describe(answers.txt.code)}`)
      } else if (!answers.txt.values.includes(record.value)) {
        problems.push(`The TXT record at ${record.name} does not hold this domain's token (found ${answers.txt.values.map((v) => JSON.stringify(v)).join(", ") || "an empty record"}); set it to ${record.value}`)
      }
    } else if (record.type === "CNAME") {
      const target = normalize(record.value)
      if (answers.cname.ok) {
        const found = answers.cname.values.map(normalize)
        if (!found.includes(target)) problems.push(`${record.name} is a CNAME to ${found.join(", ")}, not to ${target}; change it to ${target}`)
      } else if (answers.a.ok && answers.targetA.ok && answers.a.values.length > 0 &&
        answers.a.values.every((ip) => answers.targetA.ok && answers.targetA.values.includes(ip))) {
        // A flattened CNAME: the host answers with the target's addresses.
      } else if (MISSING.has(answers.cname.code)) {
        problems.push(`No CNAME record found for ${record.name}; add a CNAME to ${target}`)
      } else {
        problems.push(`Could not read the CNAME of ${record.name}: ${describe(answers.cname.code)}`)
      }
    } else if (record.type === "A") {
      if (!answers.a.ok) {
        problems.push(MISSING.has(answers.a.code)
          ? `No A record found for ${record.name}; add one with the address ${record.value}`
          : `Could not read the A record of ${record.name}: ${describe(answers.a.code)}`)
      } else if (!answers.a.values.includes(record.value)) {
        problems.push(`${record.name} points to ${answers.a.values.join(", ")}, not to ${record.value}; change its A record to ${record.value}`)
      }
    }
  }
  return problems.length === 0
    ? { ok: true, reason: "The DNS records are published correctly" }
    : { ok: false, reason: problems.join(". ") }
}

export interface CheckState {
  readonly status: DomainStatus
  readonly createdAt: Date
  readonly verifiedAt: Date | null
  readonly consecutiveFailures: number
}

/** A verified domain is marked failed only after this many checks in a row found it wrong. */
export const FAILURES_BEFORE_FAILED = 3

/**
 * The status after one check. Pending becomes verified once right, or failed when still wrong after
 * the grace period; verified becomes failed only after several wrong checks in a row (DNS blips
 * must not take links down); failed recovers as soon as the records are right again.
 */
export const nextState = (state: CheckState, ok: boolean, now: Date, graceMs: number): CheckState => {
  if (ok) {
    return {
      status: "verified",
      createdAt: state.createdAt,
      verifiedAt: state.status === "verified" && state.verifiedAt !== null ? state.verifiedAt : now,
      consecutiveFailures: 0
    }
  }
  const failures = state.consecutiveFailures + 1
  const status: DomainStatus =
    state.status === "pending"
      ? now.getTime() - state.createdAt.getTime() >= graceMs ? "failed" : "pending"
      : state.status === "verified"
      ? failures >= FAILURES_BEFORE_FAILED ? "failed" : "verified"
      : "failed"
  return { ...state, status, consecutiveFailures: failures }
}
