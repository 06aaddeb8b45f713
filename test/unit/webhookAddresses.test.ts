import { describe, expect, it } from "vitest"
import { parseIp, parseIpv6 } from "../../control/webhooks/ipAddress.ts"
import { IPV4_BLOCKS, IPV6_BLOCKS, isLoopback, notPublicBecause } from "../../control/webhooks/specialAddresses.ts"
import { refuseAddress, refuseTarget } from "../../control/webhooks/targetUrl.ts"

/**
 * Which addresses a webhook may reach, written from the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries (2025-10) rather than from the code's table: for each entry, addresses at
 * its edges and, where it carries an IPv4 address, one that embeds a private address and one that
 * embeds a public one. `true`: public, a webhook may connect.
 */
const IPV4: ReadonlyArray<readonly [block: string, address: string, isPublic: boolean]> = [
  ["0.0.0.0/8", "0.0.0.1", false], ["0.0.0.0/8", "0.255.255.255", false],
  ["0.0.0.0/32", "0.0.0.0", false],
  ["10.0.0.0/8", "10.0.0.0", false], ["10.0.0.0/8", "10.255.255.255", false], ["10.0.0.0/8", "9.255.255.255", true], ["10.0.0.0/8", "11.0.0.0", true],
  ["100.64.0.0/10", "100.64.0.0", false], ["100.64.0.0/10", "100.127.255.255", false], ["100.64.0.0/10", "100.63.255.255", true], ["100.64.0.0/10", "100.128.0.0", true],
  ["127.0.0.0/8", "127.0.0.1", false], ["127.0.0.0/8", "127.255.255.255", false],
  ["169.254.0.0/16", "169.254.0.0", false], ["169.254.0.0/16", "169.254.169.254", false], ["169.254.0.0/16", "169.254.255.255", false],
  ["172.16.0.0/12", "172.16.0.0", false], ["172.16.0.0/12", "172.31.255.255", false], ["172.16.0.0/12", "172.15.255.255", true], ["172.16.0.0/12", "172.32.0.0", true],
  ["192.0.0.0/24", "192.0.0.0", false], ["192.0.0.0/24", "192.0.0.11", false], ["192.0.0.0/24", "192.0.0.255", false], ["192.0.0.0/24", "192.0.1.0", true],
  ["192.0.0.0/29", "192.0.0.1", false], ["192.0.0.0/29", "192.0.0.7", false],
  ["192.0.0.8/32", "192.0.0.8", false],
  ["192.0.0.9/32", "192.0.0.9", true],
  ["192.0.0.10/32", "192.0.0.10", true],
  ["192.0.0.170/32", "192.0.0.170", false],
  ["192.0.0.171/32", "192.0.0.171", false],
  ["192.0.2.0/24", "192.0.2.0", false], ["192.0.2.0/24", "192.0.2.255", false],
  ["192.31.196.0/24", "192.31.196.1", true],
  ["192.52.193.0/24", "192.52.193.1", true],
  ["192.88.99.0/24", "192.88.99.0", false], ["192.88.99.0/24", "192.88.99.1", false], ["192.88.99.0/24", "192.88.99.255", false],
  ["192.88.99.0/24", "192.88.98.255", true], ["192.88.99.0/24", "192.88.100.0", true],
  ["192.88.99.2/32", "192.88.99.2", false],
  ["192.168.0.0/16", "192.168.0.0", false], ["192.168.0.0/16", "192.168.255.255", false], ["192.168.0.0/16", "192.169.0.0", true],
  ["192.175.48.0/24", "192.175.48.1", true],
  ["198.18.0.0/15", "198.18.0.0", false], ["198.18.0.0/15", "198.19.255.255", false], ["198.18.0.0/15", "198.17.255.255", true], ["198.18.0.0/15", "198.20.0.0", true],
  ["198.51.100.0/24", "198.51.100.1", false],
  ["203.0.113.0/24", "203.0.113.1", false],
  ["240.0.0.0/4", "240.0.0.0", false], ["240.0.0.0/4", "255.255.255.254", false],
  ["255.255.255.255/32", "255.255.255.255", false],
  ["224.0.0.0/4", "224.0.0.1", false], ["224.0.0.0/4", "239.255.255.255", false], ["224.0.0.0/4", "223.255.255.255", true],
  ["public", "8.8.8.8", true], ["public", "1.1.1.1", true], ["public", "93.184.216.34", true]
]

const IPV6: ReadonlyArray<readonly [block: string, address: string, isPublic: boolean]> = [
  ["::1/128", "::1", false],
  ["::/128", "::", false],
  ["::ffff:0:0/96", "::ffff:10.0.0.1", false], ["::ffff:0:0/96", "::ffff:a00:1", false], ["::ffff:0:0/96", "::ffff:127.0.0.1", false],
  ["::ffff:0:0/96", "::ffff:192.88.99.1", false], ["::ffff:0:0/96", "::ffff:8.8.8.8", true],
  ["::/96", "::127.0.0.1", false], ["::/96", "::a00:1", false], ["::/96", "0:0:0:0:0:0:7f00:1", false], ["::/96", "::169.254.169.254", false],
  ["::/96", "::8.8.8.8", true],
  ["::ffff:0:0:0/96", "::ffff:0:10.0.0.1", false], ["::ffff:0:0:0/96", "::ffff:0:7f00:1", false], ["::ffff:0:0:0/96", "::ffff:0:808:808", true],
  ["64:ff9b::/96", "64:ff9b::10.0.0.1", false], ["64:ff9b::/96", "64:ff9b::a00:1", false], ["64:ff9b::/96", "64:ff9b::7f00:1", false],
  ["64:ff9b::/96", "64:ff9b::c0a8:101", false], ["64:ff9b::/96", "64:ff9b::8.8.8.8", true],
  ["64:ff9b:1::/48", "64:ff9b:1::8.8.8.8", false], ["64:ff9b:1::/48", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", false],
  ["100::/64", "100::", false], ["100::/64", "100::ffff:ffff:ffff:ffff", false],
  ["100:0:0:1::/64", "100:0:0:1::1", false],
  ["2001::/23", "2001:4::1", false], ["2001::/23", "2001:1ff:ffff::1", false], ["2001::/23", "2001:1::4", false], ["2001::/23", "2001:4:113::1", false],
  ["2001::/23", "2001:200::1", true],
  // Teredo: server 65.54.227.120 (4136:e378); the client's address inverted: 8.8.8.8 is f7f7:f7f7, 10.0.0.1 is f5ff:fffe.
  ["2001::/32", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", true],
  ["2001::/32", "2001:0:4136:e378:8000:63bf:f5ff:fffe", false],
  ["2001::/32", "2001:0:4136:e378:8000:63bf:80ff:fffe", false],
  ["2001::/32", "2001:0:a00:1:8000:63bf:f7f7:f7f7", false],
  ["2001::/32", "2001::1", false],
  ["2001:1::1/128", "2001:1::1", true],
  ["2001:1::2/128", "2001:1::2", true],
  ["2001:1::3/128", "2001:1::3", true],
  ["2001:2::/48", "2001:2::1", false], ["2001:2::/48", "2001:2:0:ffff::1", false],
  ["2001:3::/32", "2001:3::1", true], ["2001:3::/32", "2001:3:ffff::1", true],
  ["2001:4:112::/48", "2001:4:112::1", true],
  ["2001:10::/28", "2001:10::1", false], ["2001:10::/28", "2001:1f:ffff::1", false],
  ["2001:20::/28", "2001:20::1", true], ["2001:20::/28", "2001:2f:ffff::1", true],
  ["2001:30::/28", "2001:30::1", true], ["2001:30::/28", "2001:3f:ffff::1", true], ["2001:30::/28", "2001:40::1", false],
  ["2001:db8::/32", "2001:db8::1", false], ["2001:db8::/32", "2001:db8:ffff::1", false],
  ["2002::/16", "2002:a00:1::1", false], ["2002::/16", "2002:7f00:1::1", false], ["2002::/16", "2002:c0a8:101::1", false],
  ["2002::/16", "2002:c058:6301::1", false], ["2002::/16", "2002:808:808::1", true],
  ["2620:4f:8000::/48", "2620:4f:8000::1", true],
  ["3fff::/20", "3fff::1", false], ["3fff::/20", "3fff:fff:ffff::1", false], ["3fff::/20", "3fff:1000::1", true],
  ["5f00::/16", "5f00::1", false], ["5f00::/16", "5f00:ffff::1", false],
  ["fc00::/7", "fc00::1", false], ["fc00::/7", "fd12:3456::1", false], ["fc00::/7", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false],
  ["fe80::/10", "fe80::1", false], ["fe80::/10", "febf::1", false],
  ["fec0::/10", "fec0::1", false], ["fec0::/10", "feff::1", false],
  ["ff00::/8", "ff02::1", false], ["ff00::/8", "ff0e::1", false],
  ["::/0", "4000::1", false], ["::/0", "1000::1", false], ["::/0", "200::1", false], ["::/0", "::1:0:0:1", false],
  ["2000::/3", "2000::1", true],
  ["public", "2606:4700::1111", true], ["public", "2001:4860::8888", true], ["public", "2a00:1450::1", true], ["public", "2606:2800:220:1::1", true]
]

describe("webhook addresses: the special-purpose registries", () => {
  it.each(IPV4)("IPv4 %s: %s is public: %s", (_block, address, isPublic) => {
    expect(notPublicBecause(parseIp(address)!) === undefined).toBe(isPublic)
  })

  it.each(IPV6)("IPv6 %s: %s is public: %s", (_block, address, isPublic) => {
    expect(notPublicBecause(parseIp(address)!) === undefined).toBe(isPublic)
  })

  it("tests every block of the code's tables", () => {
    const tested = new Set([...IPV4, ...IPV6].map(([block]) => block))
    for (const { prefix } of [...IPV4_BLOCKS, ...IPV6_BLOCKS]) expect(tested, prefix).toContain(prefix)
  })

  it("says why, naming the embedded address", () => {
    expect(notPublicBecause(parseIp("64:ff9b::a00:1")!)).toMatch(/NAT64.* of 10\.0\.0\.1, Private-Use/)
    expect(notPublicBecause(parseIp("::ffff:169.254.169.254")!)).toMatch(/IPv4-mapped.* of 169\.254\.169\.254, Link Local/)
    expect(notPublicBecause(parseIp("fec0::1")!)).toMatch(/Site-Local/)
  })

  it.each<readonly [string, boolean]>([
    ["127.0.0.1", true], ["127.1.2.3", true], ["::1", true], ["::ffff:127.0.0.1", true], ["::ffff:7f00:1", true],
    // Not loopback to a socket: these are routed (an IPv4-compatible route, a NAT64 gateway).
    ["::127.0.0.1", false], ["64:ff9b::7f00:1", false], ["::", false], ["10.0.0.1", false]
  ])("%s is loopback: %s", (address, loopback) => {
    expect(isLoopback(parseIp(address)!)).toBe(loopback)
  })

  it("lets loopback through only where loopback receivers are allowed, and nothing else private", () => {
    expect(refuseAddress(parseIp("127.0.0.1")!, true)).toBeUndefined()
    expect(refuseAddress(parseIp("::ffff:127.0.0.1")!, true)).toBeUndefined()
    expect(refuseAddress(parseIp("127.0.0.1")!, false)).toMatch(/Loopback/)
    expect(refuseAddress(parseIp("::127.0.0.1")!, true)).toMatch(/IPv4-compatible/)
    expect(refuseAddress(parseIp("10.0.0.1")!, true)).toMatch(/Private-Use/)
    expect(refuseAddress(parseIp("8.8.8.8")!, false)).toBeUndefined()
  })
})

describe("webhook addresses: parsing IPv6 to its 128 bits", () => {
  it.each([
    ["::7f00:1", "::127.0.0.1"], ["0:0:0:0:0:0:7f00:1", "::127.0.0.1"], ["0000:0000:0000:0000:0000:0000:7F00:0001", "::127.0.0.1"],
    ["::ffff:a00:1", "::ffff:10.0.0.1"], ["64:ff9b:0:0:0:0:a00:1", "64:ff9b::10.0.0.1"], ["1::", "1:0:0:0:0:0:0:0"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"], ["::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"], ["2001:DB8::1", "2001:db8:0:0::1"]
  ])("%s is %s", (a, b) => {
    expect(parseIpv6(a)).toBeDefined()
    expect(parseIpv6(a)).toBe(parseIpv6(b))
  })

  it("reads the groups in order", () => {
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toBe(0x0001_0002_0003_0004_0005_0006_0007_0008n)
    expect(parseIpv6("::ffff:1.2.3.4")).toBe(0xffff_0102_0304n)
    expect(parseIpv6("::")).toBe(0n)
  })

  it.each([
    "", ":", ":::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "::1:2:3:4:5:6:7:8",
    "12345::", "::g", "1:2:3:4:5:6:7:8::", "::1.2.3", "::256.0.0.1", "::01.2.3.4", "1.2.3.4::", "::1.2.3.4:5",
    "fe80::1%eth0", "[::1", " ::1", "::1 ", "0x1::"
  ])("refuses %j", (text) => {
    expect(parseIpv6(text)).toBeUndefined()
  })

  it("takes brackets and IPv4 as a URL host has them, and nothing else", () => {
    expect(parseIp("[::1]")).toEqual({ family: 6, value: 1n })
    expect(parseIp("10.0.0.1")).toEqual({ family: 4, value: 0x0a000001n })
    for (const text of ["example.com", "10.0.0", "10.0.0.1.2", "010.0.0.1", "1e1.0.0.1", "10.0.0.256"]) expect(parseIp(text), text).toBeUndefined()
  })
})

describe("webhook URLs that reach special addresses", () => {
  it.each<readonly [string, boolean]>([
    // url, accepted (loopback receivers not allowed)
    ["https://[::127.0.0.1]/in", false],
    ["https://[::a00:1]/in", false],
    ["https://[::ffff:0:a00:1]/in", false],
    ["https://[64:ff9b::10.0.0.1]/in", false],
    ["https://[64:ff9b::7f00:1]/in", false],
    ["https://[64:ff9b:1::808:808]/in", false],
    ["https://[2002:a00:1::1]/in", false],
    ["https://[2002:7f00:1::]/in", false],
    ["https://[fec0::1]/in", false],
    ["https://[100::1]/in", false],
    ["https://[2001::1]/in", false],
    ["https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/in", false],
    ["https://192.88.99.1/in", false],
    ["https://192.0.0.170/in", false],
    ["https://[3fff::1]/in", false],
    ["https://[5f00::1]/in", false],
    ["https://0x7f.1/in", false],
    ["https://2130706433/in", false],
    ["https://8.8.8.8/in", true],
    ["https://[2606:4700::1111]/in", true],
    ["https://[2001:4860::8888]/in", true],
    ["https://[64:ff9b::8.8.8.8]/in", true],
    ["https://[2002:808:808::1]/in", true]
  ])("%s accepted: %s", (url, accepted) => {
    expect(refuseTarget(url, false) === undefined).toBe(accepted)
  })

  it("does not take a routed form of 127.0.0.1 for a loopback receiver", () => {
    expect(refuseTarget("http://[::127.0.0.1]:9000/in", true)).toBeDefined()
    expect(refuseTarget("https://[::127.0.0.1]:9000/in", true)).toBeDefined()
    expect(refuseTarget("http://[::ffff:127.0.0.1]:9000/in", true)).toBeUndefined()
  })
})
