import { REDIRECT_REFERRER_POLICY } from "../pages/securityHeaders.ts"

export const NO_STORE = "private, no-store"

/**
 * A destination the engine will send a visitor to: http(s) (or an Android intent) in printable
 * ASCII, which every compiled destination is (toLocationUrl) and every visitor query is made
 * (queryAsSent): the last guard against a header split or raw bytes in Location.
 */
export const safeLocation = (location: string): boolean => /^(?:https?|intent):\/\/[\x21-\x7e]*$/i.test(location)

const MAX_HEADS = 4_096

/**
 * Each redirect's status line and headers as the bytes uWS.js writes, made once per status and
 * destination and handed to writeStatus whole: uWS.js writes the argument of writeStatus between
 * `HTTP/1.1 ` and CRLF, and that of writeHeader as `name: value` CRLF, so
 * `302 Found\r\nlocation: …\r\ncache-control: …\r\nreferrer-policy: …` is byte for byte what a
 * writeStatus and three writeHeader calls write, in one call into uWS.js instead of four and
 * without the UTF-8 copy it makes of every string argument. Kept by destination rather than on
 * the compiled link (a link has up to a destination per rule, and a million links are cached:
 * bytes a link would cost whether visited or not); destinations that go out once (a visitor's
 * query passed on) only cycle the bounded set.
 */
export class RedirectHeads {
  private readonly byStatus = new Map<number, Map<string, Uint8Array>>()
  private size = 0

  /** The head of a redirect to `location`; undefined for a location safeLocation refuses. */
  of(status: number, statusLine: string, location: string): Uint8Array | undefined {
    let heads = this.byStatus.get(status)
    const known = heads?.get(location)
    if (known !== undefined) return known
    if (!safeLocation(location)) return undefined
    if (this.size >= MAX_HEADS) {
      this.byStatus.clear()
      this.size = 0
      heads = undefined
    }
    if (heads === undefined) this.byStatus.set(status, (heads = new Map()))
    const head = new Uint8Array(Buffer.from(`${statusLine}\r\nlocation: ${location}\r\ncache-control: ${NO_STORE}\r\nreferrer-policy: ${REDIRECT_REFERRER_POLICY}`, "latin1"))
    heads.set(location, head)
    this.size++
    return head
  }
}
