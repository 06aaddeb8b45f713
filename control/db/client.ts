import postgres from "postgres"
import type { Sql } from "postgres"

/** Options every Ricochet connection uses, whichever server is behind it. */
export const clientOptions = {
  onnotice: () => {},
  connection: { TimeZone: "UTC" }
}

export const openPostgres = (url: string, max = 10): Sql => postgres(url, { ...clientOptions, max })
