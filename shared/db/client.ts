import postgres from "postgres"
import type { Sql } from "postgres"
import { watchStalledSockets } from "./stalledSockets.ts"

/** Options every Ricochet connection uses, whichever server is behind it. */
export const clientOptions = {
  onnotice: () => {},
  connection: { TimeZone: "UTC" }
}

/**
 * Bounds for a pool that must never wait on the database for long: control's, which answers the
 * API and runs the background jobs. `seconds` is RICOCHET_DB_TIMEOUT_SECONDS.
 */
export const boundedOptions = (seconds: number) => {
  const ms = Math.round(seconds * 1000)
  return {
    // TCP connect, TLS and the startup exchange.
    connect_timeout: seconds,
    connection: {
      ...clientOptions.connection,
      // The server gives up on a statement (or a lock wait) the caller has given up on, and ends
      // a transaction whose client went quiet (its locks would otherwise stay held).
      statement_timeout: ms,
      idle_in_transaction_session_timeout: ms * 2
    },
    // A connection a firewall dropped while idle is closed by us, not found dead by a request.
    idle_timeout: 60,
    // postgres.js waits up to 20 s before reconnecting after repeated errors (3^n / 100 s): after
    // an outage the first requests would wait that long. Retry within half a second instead.
    backoff: (retries: number) => Math.min(0.5, 0.05 * 2 ** retries),
    // A reply that takes longer than any statement may run means the socket is hung; the extra
    // second lets the server's own statement timeout answer first.
    socket: watchStalledSockets(ms + 1_000).socket
  }
}

/**
 * A pool on PostgreSQL at `url`. With `timeoutSeconds`, every connection is bounded as
 * boundedOptions says; without, it waits as long as the server takes (migrations, the CLI).
 * `idleTimeoutSeconds: 0` keeps an idle connection open (one that holds a session lock).
 */
export const openPostgres = (
  url: string,
  max = 10,
  timeoutSeconds?: number,
  options: { readonly idleTimeoutSeconds?: number } = {}
): Sql =>
  postgres(url, {
    ...clientOptions,
    ...(timeoutSeconds === undefined ? {} : boundedOptions(timeoutSeconds)),
    ...(options.idleTimeoutSeconds === undefined ? {} : { idle_timeout: options.idleTimeoutSeconds }),
    max
  })
