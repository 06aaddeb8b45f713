import { formatIpv4, inPrefix, type IpAddress, parsePrefix, type Prefix } from "./ipAddress.ts"

/**
 * Which addresses a webhook may reach: the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (as of 2025-10), each block refused unless the registry calls it globally reachable, plus the
 * blocks outside them that are not public either (IPv4 multicast; in IPv6 everything outside
 * global unicast 2000::/3, which takes in multicast, site-local fec0::/10 and the reserved space).
 * The most specific block decides (192.0.0.9/32 is reachable inside the refused 192.0.0.0/24).
 *
 * Blocks that carry an IPv4 address in their bits are decided on that address, since that is
 * where a packet to them ends up (a dual-stack socket, a NAT64 or 6to4 gateway, a Teredo relay,
 * an IPv4-compatible route): `::ffff:10.0.0.1`, `::10.0.0.1` and `64:ff9b::a00:1` are all
 * 10.0.0.1. The local-use NAT64 prefix 64:ff9b:1::/48 is refused whole: where its IPv4 address
 * sits depends on the operator's prefix length, and the registry says it is not global anyway.
 */
type Reach =
  | { readonly kind: "global" }
  | { readonly kind: "refused" }
  /** Decided on the IPv4 address(es) these bits carry. */
  | { readonly kind: "embedded"; readonly ipv4: (value: bigint) => ReadonlyArray<bigint> }

export interface SpecialBlock {
  readonly prefix: string
  readonly name: string
  readonly reach: Reach
}

const GLOBAL: Reach = { kind: "global" }
const REFUSED: Reach = { kind: "refused" }
const LOW_32 = 0xffffffffn
const lastBits: Reach = { kind: "embedded", ipv4: (value) => [value & LOW_32] }

export const IPV4_BLOCKS: ReadonlyArray<SpecialBlock> = [
  { prefix: "0.0.0.0/8", name: "\"This network\" (RFC 791)", reach: REFUSED },
  { prefix: "0.0.0.0/32", name: "\"This host on this network\" (RFC 1122)", reach: REFUSED },
  { prefix: "10.0.0.0/8", name: "Private-Use (RFC 1918)", reach: REFUSED },
  { prefix: "100.64.0.0/10", name: "Shared Address Space (RFC 6598)", reach: REFUSED },
  { prefix: "127.0.0.0/8", name: "Loopback (RFC 1122)", reach: REFUSED },
  { prefix: "169.254.0.0/16", name: "Link Local (RFC 3927)", reach: REFUSED },
  { prefix: "172.16.0.0/12", name: "Private-Use (RFC 1918)", reach: REFUSED },
  { prefix: "192.0.0.0/24", name: "IETF Protocol Assignments (RFC 6890)", reach: REFUSED },
  { prefix: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix (RFC 7335)", reach: REFUSED },
  { prefix: "192.0.0.8/32", name: "IPv4 dummy address (RFC 7600)", reach: REFUSED },
  { prefix: "192.0.0.9/32", name: "Port Control Protocol Anycast (RFC 7723)", reach: GLOBAL },
  { prefix: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast (RFC 8155)", reach: GLOBAL },
  { prefix: "192.0.0.170/32", name: "NAT64/DNS64 Discovery (RFC 8880)", reach: REFUSED },
  { prefix: "192.0.0.171/32", name: "NAT64/DNS64 Discovery (RFC 8880)", reach: REFUSED },
  { prefix: "192.0.2.0/24", name: "Documentation TEST-NET-1 (RFC 5737)", reach: REFUSED },
  { prefix: "192.31.196.0/24", name: "AS112-v4 (RFC 7535)", reach: GLOBAL },
  { prefix: "192.52.193.0/24", name: "AMT (RFC 7450)", reach: GLOBAL },
  // The registry leaves its reachability blank (deprecated); it is a relay's anycast, never a receiver.
  { prefix: "192.88.99.0/24", name: "Deprecated 6to4 Relay Anycast (RFC 7526)", reach: REFUSED },
  { prefix: "192.88.99.2/32", name: "6a44-relay anycast address (RFC 6751)", reach: REFUSED },
  { prefix: "192.168.0.0/16", name: "Private-Use (RFC 1918)", reach: REFUSED },
  { prefix: "192.175.48.0/24", name: "Direct Delegation AS112 Service (RFC 7534)", reach: GLOBAL },
  { prefix: "198.18.0.0/15", name: "Benchmarking (RFC 2544)", reach: REFUSED },
  { prefix: "198.51.100.0/24", name: "Documentation TEST-NET-2 (RFC 5737)", reach: REFUSED },
  { prefix: "203.0.113.0/24", name: "Documentation TEST-NET-3 (RFC 5737)", reach: REFUSED },
  { prefix: "240.0.0.0/4", name: "Reserved (RFC 1112)", reach: REFUSED },
  { prefix: "255.255.255.255/32", name: "Limited Broadcast (RFC 919)", reach: REFUSED },
  // Not in the special-purpose registry (it has its own): never a unicast receiver.
  { prefix: "224.0.0.0/4", name: "Multicast (RFC 5771)", reach: REFUSED }
]

export const IPV6_BLOCKS: ReadonlyArray<SpecialBlock> = [
  // Outside the registry: only 2000::/3 is global unicast (IANA IPv6 Address Space).
  { prefix: "::/0", name: "Reserved by IETF, not global unicast (RFC 4291)", reach: REFUSED },
  { prefix: "2000::/3", name: "Global Unicast (RFC 4291)", reach: GLOBAL },
  { prefix: "fc00::/7", name: "Unique-Local (RFC 4193)", reach: REFUSED },
  { prefix: "fe80::/10", name: "Link-Local Unicast (RFC 4291)", reach: REFUSED },
  { prefix: "fec0::/10", name: "Site-Local, deprecated (RFC 3879)", reach: REFUSED },
  { prefix: "ff00::/8", name: "Multicast (RFC 4291)", reach: REFUSED },
  { prefix: "::/96", name: "IPv4-compatible, deprecated (RFC 4291)", reach: lastBits },
  { prefix: "::ffff:0:0:0/96", name: "IPv4-translated (RFC 2765)", reach: lastBits },
  // The registry's own entries.
  { prefix: "::1/128", name: "Loopback Address (RFC 4291)", reach: REFUSED },
  { prefix: "::/128", name: "Unspecified Address (RFC 4291)", reach: REFUSED },
  { prefix: "::ffff:0:0/96", name: "IPv4-mapped Address (RFC 4291)", reach: lastBits },
  { prefix: "64:ff9b::/96", name: "IPv4-IPv6 Translation, NAT64 well-known prefix (RFC 6052)", reach: lastBits },
  { prefix: "64:ff9b:1::/48", name: "IPv4-IPv6 Translation, NAT64 local-use prefix (RFC 8215)", reach: REFUSED },
  { prefix: "100::/64", name: "Discard-Only Address Block (RFC 6666)", reach: REFUSED },
  { prefix: "100:0:0:1::/64", name: "Dummy IPv6 Prefix (RFC 9780)", reach: REFUSED },
  { prefix: "2001::/23", name: "IETF Protocol Assignments (RFC 2928)", reach: REFUSED },
  {
    prefix: "2001::/32",
    name: "TEREDO (RFC 4380)",
    // The server's address, then the client's, which the address carries with every bit inverted.
    reach: { kind: "embedded", ipv4: (value) => [(value >> 64n) & LOW_32, ~value & LOW_32] }
  },
  { prefix: "2001:1::1/128", name: "Port Control Protocol Anycast (RFC 7723)", reach: GLOBAL },
  { prefix: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast (RFC 8155)", reach: GLOBAL },
  { prefix: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast (RFC 9665)", reach: GLOBAL },
  { prefix: "2001:2::/48", name: "Benchmarking (RFC 5180)", reach: REFUSED },
  { prefix: "2001:3::/32", name: "AMT (RFC 7450)", reach: GLOBAL },
  { prefix: "2001:4:112::/48", name: "AS112-v6 (RFC 7535)", reach: GLOBAL },
  { prefix: "2001:10::/28", name: "Deprecated ORCHID (RFC 4843)", reach: REFUSED },
  { prefix: "2001:20::/28", name: "ORCHIDv2 (RFC 7343)", reach: GLOBAL },
  { prefix: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (RFC 9374)", reach: GLOBAL },
  { prefix: "2001:db8::/32", name: "Documentation (RFC 3849)", reach: REFUSED },
  { prefix: "2002::/16", name: "6to4 (RFC 3056)", reach: { kind: "embedded", ipv4: (value) => [(value >> 80n) & LOW_32] } },
  { prefix: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service (RFC 7534)", reach: GLOBAL },
  { prefix: "3fff::/20", name: "Documentation (RFC 9637)", reach: REFUSED },
  { prefix: "5f00::/16", name: "Segment Routing (SRv6) SIDs (RFC 9602)", reach: REFUSED }
]

interface ParsedBlock extends SpecialBlock {
  readonly parsed: Prefix
}

const parsed = (blocks: ReadonlyArray<SpecialBlock>): ReadonlyArray<ParsedBlock> =>
  blocks.map((block) => ({ ...block, parsed: parsePrefix(block.prefix) }))

const V4 = parsed(IPV4_BLOCKS)
const V6 = parsed(IPV6_BLOCKS)

/** The most specific block holding the address, if any. */
export const blockOf = (address: IpAddress): SpecialBlock | undefined => {
  let best: ParsedBlock | undefined
  for (const block of address.family === 4 ? V4 : V6) {
    if (inPrefix(address, block.parsed) && (best === undefined || block.parsed.bits > best.parsed.bits)) best = block
  }
  return best
}

/** Why a webhook may not connect to this address, or undefined when it is public. */
export const notPublicBecause = (address: IpAddress): string | undefined => {
  const block = blockOf(address)
  if (block === undefined || block.reach.kind === "global") return undefined
  if (block.reach.kind === "refused") return block.name
  for (const ipv4 of block.reach.ipv4(address.value)) {
    const inner = notPublicBecause({ family: 4, value: ipv4 })
    if (inner !== undefined) return `${block.name} of ${formatIpv4(ipv4)}, ${inner}`
  }
  return undefined
}

const LOOPBACK_V4 = parsePrefix("127.0.0.0/8")
const MAPPED = parsePrefix("::ffff:0:0/96")

/** 127.0.0.0/8, ::1, or 127.x written IPv4-mapped (what a dual-stack socket connects to as loopback). */
export const isLoopback = (address: IpAddress): boolean => {
  if (address.family === 4) return inPrefix(address, LOOPBACK_V4)
  if (address.value === 1n) return true
  return inPrefix(address, MAPPED) && inPrefix({ family: 4, value: address.value & LOW_32 }, LOOPBACK_V4)
}

