/**
 * Which due deliveries a sender takes, so that no workspace and no endpoint crowds out the others:
 *
 * - an endpoint (webhook) has at most ENDPOINT_CAP deliveries under way at once (fewer while its
 *   breaker is open or half-open, see breaker.ts), a workspace at most WORKSPACE_CAP, counted over
 *   every control process (the leases in the database);
 * - each pick goes to the workspace with the fewest deliveries under way, ties to the one whose
 *   waiting delivery is oldest, and within it to the endpoint with the fewest under way, ties to
 *   the oldest; within an endpoint, oldest first. So workspaces take turns (round-robin), and a
 *   newcomer is served before a workspace that already has deliveries under way;
 * - a sender (control process) has PROCESS_POOL sending slots; one slow workspace holds at most
 *   WORKSPACE_CAP of them, one slow endpoint ENDPOINT_CAP.
 *
 * Pure: the claim (deliveryQueue.ts) reads the candidates and the counts, this decides.
 */
export const ENDPOINT_CAP = 4
export const WORKSPACE_CAP = 16
export const PROCESS_POOL = 64

export interface Candidate {
  /** The delivery's id (bigserial, as text): ascending is oldest first. */
  readonly id: string
  readonly webhookId: string
  readonly workspaceId: string
}

export interface ClaimLimits {
  /** How many more deliveries each candidate endpoint may have under way (breaker and cap applied). */
  readonly endpointRoom: ReadonlyMap<string, number>
  /** Deliveries under way, by endpoint and by workspace. */
  readonly endpointInFlight: ReadonlyMap<string, number>
  readonly workspaceInFlight: ReadonlyMap<string, number>
  readonly workspaceCap: number
  /** Free sending slots of this process. */
  readonly slots: number
}

const older = (a: string, b: string): boolean => (a.length !== b.length ? a.length < b.length : a < b)

interface Endpoint {
  readonly id: string
  readonly queue: Array<string>
  room: number
  inFlight: number
}

interface Workspace {
  readonly endpoints: Array<Endpoint>
  room: number
  inFlight: number
}

/** Prefers fewer under way, then the oldest waiting delivery. */
const better = (a: { inFlight: number; head: string }, b: { inFlight: number; head: string }): boolean =>
  a.inFlight !== b.inFlight ? a.inFlight < b.inFlight : older(a.head, b.head)

/** The deliveries to claim, in the order they were picked. */
export const pickFairly = (candidates: ReadonlyArray<Candidate>, limits: ClaimLimits): Array<string> => {
  const workspaces = new Map<string, Workspace>()
  const endpoints = new Map<string, Endpoint>()
  for (const candidate of [...candidates].sort((a, b) => (older(a.id, b.id) ? -1 : older(b.id, a.id) ? 1 : 0))) {
    let endpoint = endpoints.get(candidate.webhookId)
    if (endpoint === undefined) {
      endpoint = {
        id: candidate.webhookId,
        queue: [],
        room: limits.endpointRoom.get(candidate.webhookId) ?? 0,
        inFlight: limits.endpointInFlight.get(candidate.webhookId) ?? 0
      }
      endpoints.set(candidate.webhookId, endpoint)
      let workspace = workspaces.get(candidate.workspaceId)
      if (workspace === undefined) {
        const inFlight = limits.workspaceInFlight.get(candidate.workspaceId) ?? 0
        workspace = { endpoints: [], room: limits.workspaceCap - inFlight, inFlight }
        workspaces.set(candidate.workspaceId, workspace)
      }
      workspace.endpoints.push(endpoint)
    }
    endpoint.queue.push(candidate.id)
  }

  const ready = (endpoint: Endpoint) => endpoint.room > 0 && endpoint.queue.length > 0
  const picked: Array<string> = []
  while (picked.length < limits.slots) {
    let bestWorkspace: { workspace: Workspace; endpoint: Endpoint; inFlight: number; head: string } | undefined
    for (const workspace of workspaces.values()) {
      if (workspace.room <= 0) continue
      let bestEndpoint: Endpoint | undefined
      for (const endpoint of workspace.endpoints) {
        if (!ready(endpoint)) continue
        const candidate = { inFlight: endpoint.inFlight, head: endpoint.queue[0] }
        if (bestEndpoint === undefined || better(candidate, { inFlight: bestEndpoint.inFlight, head: bestEndpoint.queue[0] })) bestEndpoint = endpoint
      }
      if (bestEndpoint === undefined) continue
      // A workspace's place in line is its oldest waiting delivery, whichever endpoint it is for.
      const head = workspace.endpoints.filter(ready).map((e) => e.queue[0]).reduce((a, b) => (older(a, b) ? a : b))
      const candidate = { workspace, endpoint: bestEndpoint, inFlight: workspace.inFlight, head }
      if (bestWorkspace === undefined || better(candidate, bestWorkspace)) bestWorkspace = candidate
    }
    if (bestWorkspace === undefined) break
    const { workspace, endpoint } = bestWorkspace
    picked.push(endpoint.queue.shift()!)
    endpoint.room--
    endpoint.inFlight++
    workspace.room--
    workspace.inFlight++
  }
  return picked
}
