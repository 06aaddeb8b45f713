// autocannon ships no types; only the parts bench/lib/load.ts uses.
declare module "autocannon" {
  interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: AutocannonRequest & Record<string, unknown>, context: Record<string, unknown>) => AutocannonRequest | null
  }
  interface AutocannonOptions {
    url: string
    connections?: number
    duration?: number
    timeout?: number
    pipelining?: number
    headers?: Record<string, string>
    requests?: ReadonlyArray<AutocannonRequest>
  }
  interface Histogram {
    average: number
    mean: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
  }
  interface AutocannonResult {
    duration: number
    errors: number
    timeouts: number
    resets: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram & { sent: number }
  }
  interface Instance extends PromiseLike<AutocannonResult> {
    stop(): void
  }
  function autocannon(options: AutocannonOptions): Instance
  export default autocannon
}
