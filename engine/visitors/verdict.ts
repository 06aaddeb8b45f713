/**
 * Who clicked (docs/decisions.md#who-clicked): `people` and `agent` clicks are recorded, `bot`
 * clicks never are. The label feeds the `people` / `agents` counts of the analytics.
 */
export type Audience = "people" | "agent" | "bot"

/**
 * Which rule of which layer decided a User-Agent's audience (docs/decisions.md#who-clicked), so
 * an operator can see why a visit was counted as it was (GET /classify on the operator port).
 */
export type Rule =
  /** No User-Agent, or only spaces. */
  | "empty"
  /** Longer than any browser's (MAX_USER_AGENT_LENGTH). */
  | "oversized"
  /** A Web Bot Auth `Signature-Agent` header. */
  | "signature-agent"
  /** An AI fetcher its vendor documents as acting on a person's request. */
  | "agent-vendor"
  /** `<Vendor>-User`, the naming AI vendors settled on for such fetchers. */
  | "agent-convention"
  /** A browser-shaped string whose software names a bot (a product token, not a device name). */
  | "browser-bot-token"
  /** A browser-shaped string carrying a URL or an e-mail address: how crawlers sign. */
  | "browser-contact"
  /** A browser (engine or name known to the parser) on a platform or device the parser knows. */
  | "browser"
  /** A TV, console or feature phone the parser knows, whose own client sent no browser token. */
  | "personal-device"
  /** A token of one of the bot families (engine/visitors/botFamilies.ts). */
  | "bot-family"
  /** `isbot`'s list. */
  | "isbot"
  /** A browser engine on no platform the parser knows, and no bot list names it. */
  | "browser-unknown-platform"
  /** A native app's own request from a phone, tablet, TV or console the parser knows. */
  | "app-on-device"
  /** Neither a browser nor a device: an unlisted library, tool or script. */
  | "non-browser"

export interface Verdict {
  readonly audience: Audience
  readonly rule: Rule
  /** What matched: the vendor token, the bot token or family, the browser and platform. */
  readonly evidence: string
}

export const verdict = (audience: Audience, rule: Rule, evidence: string): Verdict =>
  Object.freeze({ audience, rule, evidence })
