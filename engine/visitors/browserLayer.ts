import { UAParser } from "ua-parser-js"
import { botSoftwareToken } from "./botSoftwareToken.ts"
import { withoutInAppDataFields } from "./inAppBrowsers.ts"
import { readUserAgent, softwareTokens } from "./userAgentTokens.ts"
import { verdict, type Verdict } from "./verdict.ts"

/** The device ua-parser-js 1.x recognises. */
export interface DeviceIdentity {
  readonly type: string | undefined
  readonly vendor: string | undefined
  readonly model: string | undefined
}

/**
 * What ua-parser-js 1.x recognises in a User-Agent. The device is read only when asked: its
 * regular expressions cost more than the rest together, and most browsers are decided without it.
 */
export interface BrowserIdentity {
  readonly browser: string | undefined
  readonly browserVersion: string | undefined
  readonly engine: string | undefined
  readonly os: string | undefined
  readonly device: () => DeviceIdentity
}

// One parser per module instance (per thread); parsing is synchronous, so reusing it is safe.
const parser = new UAParser()

export const identifyBrowser = (userAgent: string): BrowserIdentity => {
  parser.setUA(userAgent)
  const browser = parser.getBrowser()
  let device: DeviceIdentity | undefined
  return {
    browser: browser.name || undefined,
    browserVersion: browser.version || undefined,
    engine: parser.getEngine().name || undefined,
    os: parser.getOS().name || undefined,
    device: () => {
      if (device === undefined) {
        const found = parser.setUA(userAgent).getDevice()
        device = { type: found.type || undefined, vendor: found.vendor || undefined, model: found.model || undefined }
      }
      return device
    }
  }
}

/**
 * Crawlers sign with a page or an address to write to; browsers never carry either. Each
 * alternative starts on a fixed character, so a long string is scanned once.
 */
const CONTACT = /\bhttps?:\/\/|\bwww\.[\w-]+\.[a-z]{2,}|\w@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b/i

/**
 * Feature phones (J2ME, MediaTek MAUI, WAP, Japanese carriers' handsets): their built-in browser
 * often names only the handset and the platform.
 */
const FEATURE_PHONE_PLATFORM =
  /\bMIDP-?\d|\bCLDC-?\d|\bUP\.Browser\/|\bWAP[ _-]?Browser\b|\bMAUI\b|^(?:DoCoMo|KDDI-|SoftBank|J-PHONE|Vodafone)\b|\bDDIPOCKET\b|\bFOMA\b|\bjig browser/i

/**
 * Browsers the parser does not name: Netscape Navigator 2-4 ("Mozilla/4.5 [en] (X11; I; Linux
 * 2.2.16 i586)") and the stock browsers of early Chinese Android phones, which write their
 * engine without a slash ("Browser/AppleWebKit533.1").
 */
const UNNAMED_BROWSER = /^Mozilla\/[2-4]\.\d+ ?\[[a-zA-Z-]+\] ?\(|\bAppleWebKit\d/i

/** "Chrome 120.0.0.0 on Android"; the device only where it decided (it costs a parse of its own). */
const describe = (identity: BrowserIdentity, withDevice: boolean): string => {
  const device = withDevice ? identity.device() : undefined
  return [
    identity.browser ?? identity.engine ?? "client",
    identity.browserVersion,
    identity.os !== undefined ? `on ${identity.os}` : undefined,
    device?.type !== undefined ? `(${[device.type, device.vendor, device.model].filter(Boolean).join(" ")})` : undefined
  ]
    .filter(Boolean)
    .join(" ")
}

/**
 * Layer 2: positive identification. A browser (an engine or a browser name ua-parser-js knows)
 * on a platform or device it knows is a person, unless the string names a bot where software
 * names itself or signs with a URL or an address. A TV, console or feature phone sending only
 * its own name counts as a browser too. Anything else goes on to the bot lists.
 */
export const browserLayer = (userAgent: string, identity: BrowserIdentity): Verdict | undefined => {
  const browserShaped = identity.browser !== undefined || identity.engine !== undefined || UNNAMED_BROWSER.test(userAgent)
  const personalDevice = () => {
    const { type } = identity.device()
    return type === "smarttv" || type === "console" || FEATURE_PHONE_PLATFORM.test(userAgent)
  }
  if (!browserShaped && !personalDevice()) return undefined
  // An in-app browser's data fields (WeChat's `Process/tools`) are not software names.
  const parts = readUserAgent(withoutInAppDataFields(userAgent))
  // Asked first without the device: only when a bot's name turns up is it worth reading the
  // device, to tell whether that name is the handset's.
  const token =
    botSoftwareToken(softwareTokens(parts, { model: undefined, vendor: undefined })) === undefined
      ? undefined
      : botSoftwareToken(softwareTokens(parts, identity.device()))
  if (token !== undefined) return verdict("bot", "browser-bot-token", token)
  const contact = CONTACT.exec(userAgent)
  if (contact !== null) return verdict("bot", "browser-contact", contact[0])
  const knownPlatform =
    identity.os !== undefined || personalDevice() || identity.device().type !== undefined || identity.device().vendor !== undefined
  if (!knownPlatform) return undefined
  return browserShaped ? verdict("people", "browser", describe(identity, false)) : verdict("people", "personal-device", describe(identity, true))
}
