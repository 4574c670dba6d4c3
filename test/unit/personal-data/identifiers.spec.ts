import {
  ERASED,
  identifierDigest,
  IdentifierMatcher,
  nameWords,
  normaliseName,
} from '../../../src/personal-data/identifiers';

/** docs/personal-data.md "How erasure finds the person": identifiers matched normalised. */
describe('IdentifierMatcher', () => {
  const key = Buffer.from('test key');
  const m = new IdentifierMatcher(
    key,
    { name: 'Zoya Qureshi', email: 'Zoya.Q@Example.test', phone: '+919822903448' },
    [],
  );

  it.each(['+91 98229 03448', '09822903448', '98229-03448', '9822903448', '+91-(98229)-03448'])(
    'finds the phone written as %s',
    (written) => {
      expect(m.redact(`call ${written} today`)).toBe(`call ${ERASED} today`);
    },
  );

  it('does not take a phone out of a longer number', () => {
    expect(m.matches('order 1239822903448')).toBe(false);
    expect(m.matches('98229034481')).toBe(false);
  });

  it('finds the email in any case and the name as whole words, in any case and spacing', () => {
    expect(m.redact('mail ZOYA.q@example.TEST now')).toBe(`mail ${ERASED} now`);
    expect(m.redact('zoya   QURESHI wants to pay')).toBe(`${ERASED} wants to pay`);
    expect(m.matches('Zoya Qureshiya')).toBe(false);
  });

  it('redacts strings and phone-like numbers inside JSON', () => {
    expect(m.redactJson({ a: ['x Zoya Qureshi'], p: 9822903448, n: 12 })).toEqual({
      a: [`x ${ERASED}`],
      p: ERASED,
      n: 12,
    });
  });

  it('finds corrected-away values by their keyed hash only', () => {
    const old = normaliseName('Noor  Old');
    const o = new IdentifierMatcher(key, {}, [
      { kind: 'name', words: nameWords(old), digest: identifierDigest(key, 'name', old) },
      { kind: 'email', words: null, digest: identifierDigest(key, 'email', 'noor@example.test') },
      { kind: 'phone', words: null, digest: identifierDigest(key, 'phone', '9123456789') },
    ]);
    expect(o.redact('NOOR old, Noor@Example.test, 0 91234 56789')).toBe(
      `${ERASED}, ${ERASED}, ${ERASED}`,
    );
    const other = new IdentifierMatcher(Buffer.from('other key'), {}, [
      { kind: 'email', words: null, digest: identifierDigest(key, 'email', 'noor@example.test') },
    ]);
    expect(other.matches('noor@example.test')).toBe(false);
  });
});
