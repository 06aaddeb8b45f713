import type { CompiledLink } from "../links/compile.ts"
import type { GeoLookup } from "../geo/geo.ts"
import { cookieName, readCookie, verifyUnlock } from "../password/unlock.ts"
import type { Visit } from "../rules/evaluate.ts"
import { parseDevice } from "../visitors/device.ts"
import { isSocialPreviewCrawler } from "../visitors/socialPreview.ts"
import type { Incoming } from "./incoming.ts"

/** What every visit of one server looks things up with. */
export interface VisitContext {
  readonly geo: GeoLookup
  readonly secret: string
}

/** The visit's facts, each derived only if a rule asks (one object, no closures per request). */
export class RequestVisit implements Visit {
  private device: ReturnType<typeof parseDevice> | undefined
  constructor(
    private readonly context: VisitContext,
    private readonly incoming: Incoming,
    private readonly link: CompiledLink,
    readonly now: number
  ) {}
  get query() {
    return this.incoming.query
  }
  private deviceInfo() {
    return (this.device ??= parseDevice(this.incoming.userAgent))
  }
  country() {
    return this.context.geo.country(this.incoming.ip, this.incoming.geoHeader)
  }
  platform() {
    return this.deviceInfo().platform
  }
  inAndroidInAppBrowser() {
    const device = this.deviceInfo()
    return device.platform === "android" && device.inAppBrowser !== null
  }
  visitorKey() {
    return `${this.incoming.ip}\n${this.incoming.userAgent}`
  }
  previewCrawler() {
    return isSocialPreviewCrawler(this.incoming.userAgent)
  }
  unlocked() {
    const { id, extras } = this.link
    return verifyUnlock(this.context.secret, id, extras!.passwordHash!, readCookie(this.incoming.cookie, cookieName(id)), this.now)
  }
}
