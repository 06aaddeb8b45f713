/**
 * In-process wake-up for the outbox publisher. A transaction that wrote events marks the outbox
 * dirty; when a database call of this process completes, the publisher is woken at once instead of
 * at its next poll. On PostgreSQL, NOTIFY does this across processes; the embedded database has
 * no LISTEN, and this is how its changes reach the engine within a millisecond or two.
 */
let dirty = false
let wake: (() => void) | undefined

export const markOutboxDirty = (): void => {
  dirty = true
}

export const afterDatabaseCall = (): void => {
  if (!dirty || wake === undefined) return
  dirty = false
  wake()
}

export const onOutboxDirty = (callback: (() => void) | undefined): void => {
  wake = callback
}
