/**
 * Whether a failure of a database call means the database could not be reached or did not answer
 * in time (worth a retry: the API answers 503) rather than a fault in the call (a logged 500).
 */

/** postgres.js's own connection errors, and the socket errors Node reports under them. */
const CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN"
])

/**
 * PostgreSQL SQLSTATEs that say the server is going away, is not taking connections yet, or gave
 * up on the statement because of a timeout we set.
 */
const SERVER_STATES = new Set([
  "57014", // query_canceled: statement_timeout
  "55P03", // lock_not_available: lock_timeout
  "25P03", // idle_in_transaction_session_timeout
  "57P05", // idle_session_timeout
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up, in recovery
  "53300", // too_many_connections
  "53000" // insufficient_resources
])

export const isDatabaseUnavailable = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const code = (error as { code?: unknown }).code
  if (typeof code !== "string") return false
  // Class 08: connection exception (the server dropped or refused the session).
  return CONNECTION_CODES.has(code) || SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)
}
