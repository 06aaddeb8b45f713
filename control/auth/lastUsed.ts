/**
 * Last-use times (of keys, of sessions) are written at most once a minute per credential and
 * process, not once per request: the list shows them to the minute, and a session's idle
 * expiry is counted in hours.
 */
const EVERY_MS = 60_000
const MAX_TRACKED = 50_000

export const lastUseRecorder = () => {
  const written = new Map<string, number>()
  /** Whether the credential's last use is due to be written now (and notes that it is). */
  return (id: string, now = Date.now()): boolean => {
    const last = written.get(id)
    if (last !== undefined && now - last < EVERY_MS) return false
    // A bound, not an eviction policy: forgetting only means one more write.
    if (written.size >= MAX_TRACKED) written.clear()
    written.set(id, now)
    return true
  }
}
