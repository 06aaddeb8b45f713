/**
 * Waits `ms` of wall-clock time: for what another process or thread does on its own clock (a
 * poll interval, a grace period). To wait for a condition, poll it with `eventually`
 * (processes.ts); what counts in minute windows is tested on a clock the test moves
 * (inProcessControl.ts).
 */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
