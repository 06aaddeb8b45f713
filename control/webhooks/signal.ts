/**
 * In-process wake-up of the delivery worker: a new delivery goes out at once instead of at the
 * worker's next poll (other control processes find it at theirs).
 */
let wake: (() => void) | undefined

export const markWebhooksDue = (): void => {
  // After the enqueuing transaction commits, not during it: the worker could not see the rows yet.
  if (wake !== undefined) setTimeout(wake, 5)
}

export const onWebhooksDue = (callback: (() => void) | undefined): void => {
  wake = callback
}
