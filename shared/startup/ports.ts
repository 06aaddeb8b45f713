import { createServer } from "node:net"

/** A port the process is about to listen on, and the variable that moves it. */
export interface WantedPort {
  readonly port: number
  /** Where it binds, when not the listen host (the operator ports have their own). */
  readonly host?: string
  readonly variable: string
  readonly what: string
}

const isFree = (host: string, port: number): Promise<boolean | NodeJS.ErrnoException> =>
  new Promise((resolve) => {
    const server = createServer()
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "EADDRINUSE" ? false : error))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)))
  })

/**
 * Checked before the database is opened or the first workspace is created: a start that cannot
 * listen must leave nothing behind (a key printed "once" for a server that never ran). Port 0 asks
 * the system for any free port and cannot be taken. Answers the one line to show, or undefined.
 */
export const portProblem = async (host: string, ports: ReadonlyArray<WantedPort>): Promise<string | undefined> => {
  for (const wanted of ports) {
    if (wanted.port === 0) continue
    const on = wanted.host ?? host
    const free = await isFree(on, wanted.port)
    if (free === true) continue
    if (free === false) {
      return `ricochet: port ${wanted.port} (${wanted.what}) is already in use on ${on}; set ${wanted.variable} to another port`
    }
    return `ricochet: cannot listen on ${on}:${wanted.port} (${wanted.what}, ${wanted.variable}): ${free.code ?? free.message}`
  }
  return undefined
}
