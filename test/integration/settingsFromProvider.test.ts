import { afterEach, describe, expect, it } from "vitest"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"

/**
 * Control's services read their settings from the variables the control was started with (the
 * ConfigProvider its root installs), not from whatever environment the process has. Each control
 * here is given one value of RICOCHET_WEBHOOKS_ALLOW_LOOPBACK while this test process's own
 * environment says the opposite: WebhookRepository, reading the wrong source, would answer the
 * other way when a webhook is pointed at a loopback receiver.
 */
const VARIABLE = "RICOCHET_WEBHOOKS_ALLOW_LOOPBACK"

describe("a control's services read the variables it was started with", () => {
  let ctl: InProcessControl | undefined
  const before = process.env[VARIABLE]

  afterEach(async () => {
    await ctl?.stop()
    ctl = undefined
    if (before === undefined) delete process.env[VARIABLE]
    else process.env[VARIABLE] = before
  })

  const createLoopbackWebhook = async (control: InProcessControl) => {
    const res = await fetch(`${control.baseUrl}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${control.first.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["link.created"] })
    })
    return { status: res.status, body: await res.json() }
  }

  it("accepts a loopback receiver when its own variables allow it, the process's saying no", async () => {
    process.env[VARIABLE] = "false"
    ctl = await startInProcessControl("postgres", { [VARIABLE]: "true" })
    const created = await createLoopbackWebhook(ctl)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.url).toBe("http://127.0.0.1:9/hook")
  }, 120_000)

  it("refuses it when its own variables do not, the process's allowing it", async () => {
    process.env[VARIABLE] = "true"
    ctl = await startInProcessControl("postgres")
    const refused = await createLoopbackWebhook(ctl)
    expect(refused.status, JSON.stringify(refused.body)).toBe(422)
    expect(refused.body.error.issues[0].path[0]).toBe("url")
  }, 120_000)
})
