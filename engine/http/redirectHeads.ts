import { REDIRECT_REFERRER_POLICY } from "../pages/securityHeaders.ts"

export const NO_STORE = "private, no-store"

/**
 * A destination the engine will send a visitor to: http(s) (or an Android intent) in printable
 * ASCII, which every compiled destination is (toLocationUrl) and every visitor query is made
 * (queryAsSent): the last guard against a header split or raw bytes in Location.
 */
export const safeLocation = (location: string): boolean => /^(?:https?|intent):\/\/[\x21-\x7e]*$/i.test(location)

/** Destinations remembered (with heads made, and seen once), each set cleared when full. */
const MAX_REMEMBERED = 4_096

/**
 * Each redirect's status line and headers as the bytes uWS.js writes, made once per status and
 * destination and handed to writeStatus whole: uWS.js writes the argument of writeStatus between
 * `HTTP/1.1 ` and CRLF, and that of writeHeader as `name: value` CRLF, so
 * `302 Found\r\nlocation: …\r\ncache-control: …\r\nreferrer-policy: …` is byte for byte what a
 * writeStatus and three writeHeader calls write, in one call into uWS.js instead of four and
 * without the UTF-8 copy it makes of every string argument.
 *
 * Kept by destination rather than on the compiled link (a link has up to a destination per rule,
 * and a million links are cached: bytes a link would cost whether visited or not). A head is made
 * on a destination's second visit: making one costs more than the four calls it saves (an
 * ArrayBuffer), so destinations visited once (a long tail of links, a visitor's query passed on)
 * are written call by call and only pass through the set of those seen once.
 */
export class RedirectHeads {
  private readonly made = new Map<string, { readonly status: number; readonly bytes: Uint8Array }>()
  private readonly seenOnce = new Set<string>()

  /** The head made for a redirect to `location` with this status, if there is one. */
  get(status: number, location: string): Uint8Array | undefined {
    const head = this.made.get(location)
    return head !== undefined && head.status === status ? head.bytes : undefined
  }

  /** A redirect to a safe `location` was written call by call: the second time, its head is made. */
  written(status: number, statusLine: string, location: string): void {
    if (!this.seenOnce.delete(location)) {
      if (this.seenOnce.size >= MAX_REMEMBERED) this.seenOnce.clear()
      this.seenOnce.add(location)
      return
    }
    if (this.made.size >= MAX_REMEMBERED) this.made.clear()
    const text = `${statusLine}\r\nlocation: ${location}\r\ncache-control: ${NO_STORE}\r\nreferrer-policy: ${REDIRECT_REFERRER_POLICY}`
    this.made.set(location, { status, bytes: new Uint8Array(Buffer.from(text, "latin1")) })
  }
}
