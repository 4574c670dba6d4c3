import type { PaymentStarted, PayMode } from '../../../src/payments/payments.service';

/**
 * Compile-time facts of pay() (checked by `npm run typecheck`, which covers test/): the mode that
 * cannot work does not compile, and a caller cannot handle a `settled` pay() never returns.
 */
describe('pay() modes and answers (types)', () => {
  it('refuses an intent queued for the commit while the caller applies the rail answer', () => {
    const fine: PayMode[] = [
      { rail: 'after_commit' },
      { rail: 'after_commit', insert: 'now' },
      { rail: 'after_commit', insert: 'with_commit' },
      { rail: 'caller_applies' },
    ];
    // @ts-expect-error the caller applies the rail's answer to an intent that must exist now
    const illegal: PayMode = { rail: 'caller_applies', insert: 'with_commit' };
    expect(fine).toHaveLength(4);
    expect(illegal.rail).toBe('caller_applies');
  });

  it('answers processing, requires_approval or declined, never settled', () => {
    const statuses = (s: PaymentStarted['status']): string => {
      switch (s) {
        case 'processing':
        case 'requires_approval':
        case 'declined':
          return s;
        // @ts-expect-error pay() never settles: the rail is called after commit or by the caller
        case 'settled':
          return s;
      }
    };
    expect(statuses('processing')).toBe('processing');
  });
});
