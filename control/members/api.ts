import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminOnly } from "../kernel/AdminOnly.ts"
import { CountedByAddress } from "../kernel/Admission.ts"
import { Forbidden, RateLimitExceeded, ServiceUnavailable, Unauthorized } from "../kernel/errors.ts"
import { DatabaseUnavailable } from "../kernel/DatabaseUnavailable.ts"
import { input, requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { DeletionResult, IdParams } from "../kernel/fields.ts"
import { Session } from "../sessions/schema.ts"
import { SignInOrigin } from "../sessions/SignInOrigin.ts"
import { AlreadyInvited, InvitationPasswordWrong, InvitationUnknown, LastAdmin, MemberNotFound } from "./errors.ts"
import {
  CreatedInvitation,
  InvitationAccept,
  InvitationCreate,
  InvitationList,
  InvitationPreview,
  InvitationToken,
  Member,
  MemberList,
  OtherSessionsEnded,
  RoleChange
} from "./schema.ts"

/** /v1/members and /v1/invitations: the people of the workspace (not in the spec; the dashboard's). */
export const MembersApi = HttpApiGroup.make("members")
  .annotate(OpenApi.Description, "The people of the workspace, their roles, invitations (not in the spec)")
  .add(HttpApiEndpoint.get("list", "/members", { success: MemberList }).annotate(OpenApi.Summary, "List the workspace's members"))
  .add(
    HttpApiEndpoint.patch("setRole", "/members/:id", {
      params: input(IdParams),
      payload: requestBody(RoleChange),
      success: Member,
      error: [MemberNotFound.response, LastAdmin.response]
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "Change a member's role (admins only; the last admin stays one: 409)")
  )
  .add(
    HttpApiEndpoint.delete("remove", "/members/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: [MemberNotFound.response, LastAdmin.response]
    }).middleware(RequestChecks).middleware(AdminOnly)
      .annotate(OpenApi.Summary, "Remove a member: their sessions in this workspace end and their keys here are revoked")
  )
  .add(HttpApiEndpoint.get("invitations", "/invitations", { success: InvitationList }).middleware(AdminOnly).annotate(OpenApi.Summary, "Invitations waiting"))
  .add(
    HttpApiEndpoint.post("invite", "/invitations", {
      payload: requestBody(InvitationCreate),
      success: CreatedInvitation.pipe(HttpApiSchema.status(201)),
      error: AlreadyInvited.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(
      OpenApi.Description,
      "Invites an email with a role. The answer's `token` (shown this once) makes the one-time link: the dashboard's " +
        "`/invite#<token>`. It works for 7 days, once; an email that is a member already, or has an invitation waiting, is 409."
    ).annotate(OpenApi.Summary, "Invite someone")
  )
  .add(
    HttpApiEndpoint.delete("revokeInvitation", "/invitations/:id", {
      params: input(IdParams),
      success: DeletionResult,
      error: InvitationUnknown.response
    }).middleware(RequestChecks).middleware(AdminOnly).annotate(OpenApi.Summary, "Revoke an invitation")
  )
  .add(
    HttpApiEndpoint.delete("endOtherSessions", "/me/sessions", { success: OtherSessionsEnded })
      .annotate(OpenApi.Summary, "Sign out every other session of the signed-in person (a key: 401)")
  )

/**
 * Accepting an invitation: nobody is signed in yet, so outside Admission, counted by address and
 * refused from another site like signing in; the password is a guess like a sign-in's.
 */
export const InvitationsApi = HttpApiGroup.make("invitationAccept")
  .annotate(OpenApi.Description, "Opening and accepting an invitation link (not in the spec)")
  .add(
    HttpApiEndpoint.post("preview", "/invitations/preview", {
      payload: requestBody(InvitationToken),
      success: InvitationPreview,
      error: [InvitationUnknown.response, Unauthorized.response, RateLimitExceeded.response, ServiceUnavailable.response, Forbidden.response]
    }).middleware(RequestChecks).annotate(OpenApi.Summary, "What an invitation is for: email, role, workspace, whether the email has an account")
  )
  .add(
    HttpApiEndpoint.post("accept", "/invitations/accept", {
      payload: requestBody(InvitationAccept),
      success: Session.pipe(HttpApiSchema.status(201)),
      error: [InvitationUnknown.response, InvitationPasswordWrong.response, Unauthorized.response, RateLimitExceeded.response, ServiceUnavailable.response, Forbidden.response]
    }).middleware(RequestChecks).annotate(
      OpenApi.Description,
      "Accepts with the password of the email's account, or, without one, a new password (8 to 200 characters) for the " +
        "account made now; signs in (the session cookie) to the workspace. The invitation is used once."
    ).annotate(OpenApi.Summary, "Accept an invitation")
  )
  .middleware(SignInOrigin)
  .middleware(CountedByAddress)
