import { Resolver } from "node:dns/promises"
import type { DnsAnswers, Lookup } from "./verification.ts"

const settle = async <T>(query: () => Promise<ReadonlyArray<T>>): Promise<Lookup<T>> => {
  try {
    return { ok: true, values: await query() }
  } catch (error) {
    return { ok: false, code: (error as NodeJS.ErrnoException).code ?? "EUNKNOWN" }
  }
}

/**
 * Asks real DNS for what verification needs. The servers come from RICOCHET_DNS_SERVERS
 * (host:port entries, so tests run a server on loopback); empty means the system resolver.
 */
export const makeDnsLookup = (servers: ReadonlyArray<string>) => {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 })
  if (servers.length > 0) resolver.setServers([...servers])
  return async (host: string, challengeName: string, cnameTarget: string): Promise<DnsAnswers> => {
    const [txt, cname, a, targetA] = await Promise.all([
      settle(async () => (await resolver.resolveTxt(challengeName)).map((chunks) => chunks.join(""))),
      settle(() => resolver.resolveCname(host)),
      settle(() => resolver.resolve4(host)),
      settle(() => resolver.resolve4(cnameTarget))
    ])
    return { txt, cname, a, targetA }
  }
}

export type DnsLookup = ReturnType<typeof makeDnsLookup>
