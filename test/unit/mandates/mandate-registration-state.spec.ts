import {
  REGISTRATION_PENDING_MAX_MS,
  REGISTRATION_RETRY_AFTER_S,
  registrationPendingRetryAfter,
} from '../../../src/mandates/mandate-registration-state';

describe('registrationPendingRetryAfter (docs/mandates.md "Amendments while the gateway registration is pending")', () => {
  const authorisedAt = new Date('2026-12-03T10:00:00Z');
  const at = (ms: number) => new Date(authorisedAt.getTime() + ms);
  const none = { endedAt: null, startedAt: null, hasToken: false };

  it('is pending on the gateway rail from the authorisation until the registration ends', () => {
    expect(registrationPendingRetryAfter({ authorisedAt }, none, at(1_000), true)).toBe(
      REGISTRATION_RETRY_AFTER_S,
    );
    const ended = { endedAt: at(3_000), startedAt: null, hasToken: true };
    expect(registrationPendingRetryAfter({ authorisedAt }, ended, at(4_000), true)).toBeNull();
  });

  it('is not pending after the bound (a registration that died), on other rails, or before authorisation', () => {
    expect(
      registrationPendingRetryAfter({ authorisedAt }, none, at(REGISTRATION_PENDING_MAX_MS), true),
    ).toBeNull();
    expect(registrationPendingRetryAfter({ authorisedAt }, none, at(1_000), false)).toBeNull();
    expect(registrationPendingRetryAfter({ authorisedAt: null }, none, at(1_000), true)).toBeNull();
  });

  it('ignores an end written before this authorisation', () => {
    const earlier = { endedAt: at(-60_000), startedAt: null, hasToken: false };
    expect(registrationPendingRetryAfter({ authorisedAt }, earlier, at(1_000), true)).toBe(
      REGISTRATION_RETRY_AFTER_S,
    );
  });
  it('is pending again while a registration made by a debit runs, until it ends or its bound', () => {
    // The registration after authorisation failed (ended); a debit starts one much later.
    const failed = { endedAt: at(2_000), startedAt: at(600_000), hasToken: false };
    expect(registrationPendingRetryAfter({ authorisedAt }, failed, at(601_000), true)).toBe(
      REGISTRATION_RETRY_AFTER_S,
    );
    const done = { ...failed, endedAt: at(603_000) };
    expect(registrationPendingRetryAfter({ authorisedAt }, done, at(604_000), true)).toBeNull();
    expect(
      registrationPendingRetryAfter(
        { authorisedAt },
        failed,
        at(600_000 + REGISTRATION_PENDING_MAX_MS),
        true,
      ),
    ).toBeNull();
    expect(registrationPendingRetryAfter({ authorisedAt }, failed, at(601_000), false)).toBeNull();
  });
});
