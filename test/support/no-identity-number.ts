import { identityNumberIn } from '../../src/common/identity/identity-numbers';

/**
 * A random test value the identity-number edge never refuses (docs/personal-data.md "Identity
 * numbers we refuse"): about one random email in 6,000 of the form `person-<10 characters>@…`
 * reads as a PAN (`person-abcpe1234f@example.test`), and signing in with it is a 400. Draws again
 * until the value holds none.
 */
export function withoutIdentityNumber(draw: () => string): string {
  for (;;) {
    const value = draw();
    if (identityNumberIn(value) === null) {
      return value;
    }
  }
}
