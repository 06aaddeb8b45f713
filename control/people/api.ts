import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { OpenBeforePasswordChange } from "../kernel/Admission.ts"
import { requestBody, RequestChecks } from "../kernel/RequestChecks.ts"
import { Session } from "../sessions/schema.ts"
import { CurrentPasswordWrong, NewPasswordUnchanged } from "./errors.ts"
import { PasswordChange } from "./schema.ts"

/** /v1/me: the signed-in person's own account (a key has none: 401). */
export const MeApi = HttpApiGroup.make("me")
  .annotate(OpenApi.Description, "The signed-in person's own account")
  .add(
    HttpApiEndpoint.post("changePassword", "/me/password", {
      payload: requestBody(PasswordChange),
      success: Session,
      error: [CurrentPasswordWrong.response, NewPasswordUnchanged.response]
    }).middleware(RequestChecks)
      .annotate(OpenBeforePasswordChange, true)
      .annotate(
        OpenApi.Description,
        "Replaces the password of the signed-in person (a session; an API key is 401): `currentPassword` is the one signed in " +
          "with (wrong: 422 with a `wrong_password` issue, counted as a wrong password of sign-in: five a minute per account " +
          "and per address, then 429), `newPassword` 8 to 200 characters and not the current one (422), stored as a " +
          "one-way hash; a one-time password stops being one (`mustChangePassword` false); every other session of the person ends, " +
          "this one goes on. Answers the Session."
      )
      .annotate(OpenApi.Summary, "Change your password")
  )
