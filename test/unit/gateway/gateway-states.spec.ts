import {
  advanceSql,
  GATEWAY_MOVES,
  GatewayEntity,
  isFinal,
  movesForward,
  reachableFrom,
} from '../../../src/rails/gateway/gateway-states';

/** The documented order of every gateway-driven state (issue 21 item 3, "Never backwards"). */
describe('gateway states', () => {
  const entities = Object.keys(GATEWAY_MOVES) as GatewayEntity[];
  const statesOf = (e: GatewayEntity) => Object.keys(GATEWAY_MOVES[e]) as never[];

  it('every order has no way back: no state is reachable from itself', () => {
    for (const e of entities) {
      for (const s of statesOf(e)) {
        expect({ e, s, back: reachableFrom(e, s).includes(s) }).toEqual({ e, s, back: false });
      }
    }
  });

  it('every move leads to a state of the same entity', () => {
    for (const e of entities) {
      const states = statesOf(e) as string[];
      for (const s of statesOf(e)) {
        expect(reachableFrom(e, s).every((to) => states.includes(to))).toBe(true);
      }
    }
  });

  it('a cancelled or rejected token never returns; a rejected one may still be cancelled', () => {
    expect(movesForward('token', 'cancelled', 'confirmed')).toBe(false);
    expect(movesForward('token', 'rejected', 'confirmed')).toBe(false);
    expect(movesForward('token', 'confirmed', 'rejected')).toBe(false);
    expect(movesForward('token', 'initiated', 'cancelled')).toBe(true);
    expect(movesForward('token', 'rejected', 'cancelled')).toBe(true);
    expect(isFinal('token', 'cancelled')).toBe(true);
  });

  it('a block moves created → active → released | expired, skipping a lost step', () => {
    expect(movesForward('reserveBlock', 'created', 'released')).toBe(true);
    expect(movesForward('reserveBlock', 'released', 'active')).toBe(false);
    expect(movesForward('reserveBlock', 'released', 'expired')).toBe(false);
    expect(isFinal('reserveBlock', 'released') && isFinal('reserveBlock', 'expired')).toBe(true);
  });

  it('payments, refunds and links end where the gateway ends them', () => {
    expect(movesForward('payment', 'captured', 'failed')).toBe(false);
    expect(movesForward('payment', 'failed', 'captured')).toBe(false);
    expect(movesForward('payment', 'created', 'captured')).toBe(true);
    expect(movesForward('refund', 'processed', 'failed')).toBe(false);
    expect(movesForward('refund', 'pending', 'processed')).toBe(true);
    expect(movesForward('paymentLink', 'paid', 'cancelled')).toBe(false);
    expect(movesForward('order', 'paid', 'attempted')).toBe(false);
  });

  it('the SQL condition lists, per target, exactly the states it may be reached from', () => {
    expect(advanceSql('token', 'status', '$2')).toBe(
      "(CASE $2::text WHEN 'confirmed' THEN status IN ('initiated') " +
        "WHEN 'rejected' THEN status IN ('initiated') " +
        "WHEN 'cancelled' THEN status IN ('initiated', 'confirmed', 'rejected') ELSE false END)",
    );
  });
});
