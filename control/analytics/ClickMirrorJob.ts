import { Effect, Layer } from "effect"
import type { ClickBucketConnection } from "../../shared/clicks/clickBucket.ts"
import { ClickSettings } from "../../shared/settings/ClickSettings.ts"
import { countClickMirrorChange, setClickMirrorFollowing } from "../ops/metrics.ts"
import { ClickBucket } from "./ClickBucket.ts"
import { applyObject, type MirrorState, newMirrorState } from "./clickMirror.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

export interface RunningMirror {
  readonly state: MirrorState
  readonly stop: () => Promise<void>
}

/**
 * Keeps `clicksDir` a copy of the click bucket (clickMirror.ts) for as long as it runs. Each watch
 * starts with the bucket's history (the last change of every object), so a control that starts
 * late, was down, or lost NATS for a while catches up by itself; objects already in place are
 * recognised by size and digest and not read again. A failure (NATS away, a disk refusing the
 * file) ends the watch, and the next one, after a backoff, starts from the history again: the
 * bucket's order is kept, never skipped past.
 */
export const startMirror = (connection: ClickBucketConnection, clicksDir: string): RunningMirror => {
  const state = newMirrorState()
  let stopped = false
  let current: { stop: () => void } | undefined
  // After a reconnection the watch may have missed changes: start again from the history.
  connection.onReconnect(() => current?.stop())
  const run = async () => {
    let failingSince: number | undefined
    for (let failures = 0; !stopped;) {
      try {
        const bucket = await connection.bucket()
        const watch = await bucket.watch({ includeHistory: true })
        current = watch
        for await (const info of watch) {
          if (stopped) break
          if (info === null) {
            state.following = true
            continue
          }
          await applyObject(bucket, clicksDir, info, state)
          if (failingSince !== undefined) {
            console.log(`click mirror: following the click bucket again after ${((Date.now() - failingSince) / 1000).toFixed(1)} s`)
            failingSince = undefined
            failures = 0
          }
        }
      } catch (error) {
        if (stopped) return
        if (failingSince === undefined) {
          failingSince = Date.now()
          console.error(`click mirror: following the click bucket failed (${messageOf(error)}); starting again from its history`)
        }
        failures++
      } finally {
        state.following = false
        current?.stop()
        current = undefined
      }
      if (!stopped) await sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)))
    }
  }
  const running = run()
  return {
    state,
    stop: async () => {
      stopped = true
      current?.stop()
      await running
    }
  }
}

/** The mirror as a background job of control, with the bucket transport only. */
export const ClickMirrorJob = Layer.effectDiscard(Effect.gen(function*() {
  const { clicksDir } = yield* ClickSettings
  const { connection } = yield* ClickBucket
  if (connection === undefined) return
  const mirror = yield* Effect.acquireRelease(
    Effect.sync(() => startMirror(connection, clicksDir)),
    // stop() never rejects: run() catches every failure.
    (running) => Effect.promise(() => running.stop())
  )
  // Its figures onto control's /metrics, once a second.
  const reported = { downloaded: 0, removed: 0 }
  const report = Effect.gen(function*() {
    const { downloads, removals, following } = mirror.state
    yield* countClickMirrorChange("downloaded", downloads - reported.downloaded)
    yield* countClickMirrorChange("removed", removals - reported.removed)
    reported.downloaded = downloads
    reported.removed = removals
    yield* setClickMirrorFollowing(following)
  })
  yield* Effect.forkScoped(Effect.forever(Effect.andThen(report, Effect.sleep(1_000))))
}))
