/** Thrown by guards that answer with a redirect (e.g. to sign-in); WebExceptionFilter sends 303. */
export class WebRedirect extends Error {
  constructor(readonly location: string) {
    super(`redirect to ${location}`);
  }
}
