import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type InProcessControl, startInProcessControl } from "../support/inProcessControl.ts"
import { apiClient } from "../support/processes.ts"
import { sleep } from "../support/time.ts"

/**
 * A client paging through its links while others are being created sees every link that existed
 * when it started exactly once, in newest-first order, whatever is inserted meanwhile.
 */
describe("link pagination under concurrent inserts", () => {
  let control: InProcessControl

  beforeAll(async () => {
    control = await startInProcessControl("postgres")
  })

  afterAll(async () => {
    await control?.stop()
  })

  it("visits every pre-existing link exactly once while links are being created", async () => {
    const api = apiClient(control.baseUrl, control.first.apiKey)
    const existing: Array<string> = []
    for (let batch = 0; batch < 6; batch++) {
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        api.post("/v1/links", { url: `https://example.com/${batch}/${i}` })))
      for (const res of created) {
        expect(res.status).toBe(201)
        existing.push(res.body.id)
      }
    }

    let creating = true
    const createdDuring: Array<string> = []
    const writer = (async () => {
      let n = 0
      while (creating) {
        const res = await api.post("/v1/links", { url: `https://example.com/during/${n++}` })
        if (res.status === 201) createdDuring.push(res.body.id)
      }
    })()

    const seen: Array<string> = []
    const createdAts: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await api.get(`/v1/links?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
      expect(res.status).toBe(200)
      for (const link of res.body.data) {
        seen.push(link.id)
        createdAts.push(link.createdAt)
      }
      cursor = res.body.nextCursor
      pages++
      // Give the writer room to insert between pages.
      await sleep(20)
    } while (cursor !== null && pages < 200)
    creating = false
    await writer

    expect(createdDuring.length).toBeGreaterThan(0)
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of existing) expect(seen.filter((s) => s === id)).toHaveLength(1)
    const sorted = [...createdAts].sort().reverse()
    expect(createdAts).toEqual(sorted)
  })
})
