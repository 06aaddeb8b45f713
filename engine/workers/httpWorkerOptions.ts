import type { CacheOptions } from "../cache/linkCache.ts"

/** What an HTTP worker thread is started with (its workerData: plain values, cloned). */
export interface HttpWorkerOptions {
  readonly host: string
  readonly port: number
  readonly secret: string
  readonly trustProxy: boolean
  readonly linkScheme: "http" | "https"
  readonly geo: { readonly header: string | undefined; readonly countryDatabase: string; readonly cityDatabase: string | undefined }
  /** This worker's share of the engine's cache bounds. */
  readonly cache: CacheOptions
  /**
   * One Int32 the main thread adds to, and notifies, after each answer to this worker's cache:
   * what a worker blocking for an answer (engine/cache/blockingMiss.ts) waits on.
   */
  readonly answered: SharedArrayBuffer
  /** The bus's state when the worker starts; changes follow as messages. */
  readonly busState: { readonly connected: boolean; readonly since: number }
}
