/** Each readiness check gives up after this long, so a probe answers within it. */
export const CHECK_TIMEOUT_MS = 2000;

/** A check that did not answer within its timeout (reported as the fixed word `timeout`). */
export class CheckTimeout extends Error {
  constructor() {
    super('timeout');
  }
}

/** `work`, or a `CheckTimeout` once `ms` have passed; the timer never outlives the race. */
export async function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
