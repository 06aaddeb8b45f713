/**
 * The API key a person signed in with instead of a password, in memory only: a reload forgets it.
 * With a session there is no key: the cookie (HttpOnly) authenticates.
 */
let apiKey: string | undefined

export const currentApiKey = () => apiKey
export const useApiKey = (key: string | undefined) => {
  apiKey = key
}
