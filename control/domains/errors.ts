import { ApiError } from "../kernel/errors.ts"

/** 404: no domain with that id in the workspace. */
export class DomainNotFound extends ApiError<DomainNotFound>()("DomainNotFound", {
  code: "not_found",
  description: "No such domain in this workspace"
}) {
  static readonly make = (): DomainNotFound => new DomainNotFound({ message: "Domain not found" })
}

/** 409: a workspace (this one or another) already has that host. */
export class HostTaken extends ApiError<HostTaken>()("HostTaken", {
  code: "conflict",
  description: "The host is already registered with Ricochet"
}) {
  static readonly of = (host: string): HostTaken => new HostTaken({ message: `${host} is already registered with Ricochet` })
}

/** 409: the workspace subdomain is never removed. */
export class SubdomainKept extends ApiError<SubdomainKept>()("SubdomainKept", {
  code: "conflict",
  description: "The workspace subdomain cannot be removed"
}) {
  static readonly of = (host: string): SubdomainKept => new SubdomainKept({ message: `${host} is the workspace subdomain; it cannot be removed` })
}
