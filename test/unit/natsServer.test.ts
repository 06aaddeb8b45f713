import { describe, expect, it } from "vitest"
import { natsServer } from "../../shared/bus/natsServer.ts"

/**
 * NATS_URL's credentials (shared/bus/natsServer.ts): taken out of the server URL, which nats.js
 * 2.x would otherwise ignore them in (and read a password of digits as the port), given as its
 * connect options, and never in what is logged.
 */
describe("natsServer", () => {
  it.each<readonly [string, string, ReturnType<typeof natsServer>["credentials"], string]>([
    // [NATS_URL, servers, credentials, shown]
    ["nats://nats:4222", "nats://nats:4222", undefined, "nats://nats:4222"],
    ["nats://127.0.0.1:4222", "nats://127.0.0.1:4222", undefined, "nats://127.0.0.1:4222"],
    ["nats://ricochet:s3cret@nats:4222", "nats://nats:4222", { user: "ricochet", pass: "s3cret" }, "nats://ricochet:[redacted]@nats:4222"],
    // Percent-encoded, as a URL must carry a password with @, :, / or %.
    ["nats://ricochet:p%40ss%3Aw%2Fo%25rd@nats:4222", "nats://nats:4222", { user: "ricochet", pass: "p@ss:w/o%rd" }, "nats://ricochet:[redacted]@nats:4222"],
    // Digits only: nats.js would have taken 1234 for the port.
    ["nats://ricochet:1234@nats:4222", "nats://nats:4222", { user: "ricochet", pass: "1234" }, "nats://ricochet:[redacted]@nats:4222"],
    // A user alone is a token, as NATS's own clients read it.
    ["nats://s3cr3t-token@nats:4222", "nats://nats:4222", { token: "s3cr3t-token" }, "nats://[redacted]@nats:4222"],
    ["tls://user:pass@nats.example:4443", "tls://nats.example:4443", { user: "user", pass: "pass" }, "tls://user:[redacted]@nats.example:4443"]
  ])("%s", (natsUrl, servers, credentials, shown) => {
    const server = natsServer(natsUrl)
    expect(server).toEqual({ servers, credentials, shown })
    const secret = credentials === undefined ? undefined : "token" in credentials ? credentials.token : credentials.pass
    if (secret !== undefined) {
      expect(server.servers).not.toContain(encodeURIComponent(secret))
      expect(server.shown).not.toContain(encodeURIComponent(secret))
    }
  })
})
