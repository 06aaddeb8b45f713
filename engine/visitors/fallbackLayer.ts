import type { BrowserIdentity } from "./browserLayer.ts"
import { verdict, type Verdict } from "./verdict.ts"

/**
 * The HTTP stacks apps use on phones, tablets and TVs, as they name the platform:
 * "Blogos/1.13 CFNetwork/548.0.4 Darwin/11.0.0", "Dalvik/2.1.0 (Linux; U; Android 9; ...)",
 * AFNetworking's "Discord/52.0 (iPad; iOS 14.4; Scale/2.00)", Chromium's Cronet in Android apps.
 */
const PLATFORM_NETWORK_STACK =
  /\bCFNetwork\/[\d.]+ Darwin\/|\bDalvik\/[\d.]+ \(Linux; U; Android\b|\((?:iPhone|iPad|iPod)[^;)]*; iOS [\d.]+; Scale\/|\bAndroid [\d.]+;[^()]*\bCronet\//

/**
 * Layer 4, for what no earlier layer decided: a browser engine on a platform the parser does not
 * know is a person; so is an app's own request from a phone, tablet, TV or console the parser
 * knows, or through its platform's HTTP stack (a podcast app downloading an episode, an app
 * resolving a link a person tapped). Any other shape is a bot: an unlisted library, tool or script.
 */
export const fallbackLayer = (userAgent: string, identity: BrowserIdentity): Verdict => {
  if (identity.browser !== undefined || identity.engine !== undefined) {
    return verdict("people", "browser-unknown-platform", identity.browser ?? identity.engine ?? "")
  }
  const device = identity.device()
  if (device.type !== undefined || PLATFORM_NETWORK_STACK.test(userAgent)) {
    return verdict("people", "app-on-device", [identity.os, device.type, device.vendor, device.model].filter(Boolean).join(" "))
  }
  return verdict("bot", "non-browser", "")
}
