/** An address a person signs in with: something@something, no spaces. Browser-safe (the API declaration uses it). */
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/
