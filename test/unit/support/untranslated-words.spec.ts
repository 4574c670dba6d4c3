import { untranslatedWords } from '../../support/browser';

describe('untranslatedWords (the Hindi page check)', () => {
  it('passes Hindi with data, ids, addresses, amounts, currency codes and the allowed terms', () => {
    expect(
      untranslatedWords(
        [
          'Chai Co को ₹925.00 का भुगतान UPI AutoPay से',
          'मैंडेट mdt_00abc123 · asha@okaxis · https://example.test/x',
          '25 नव॰ 2026, 9:27 pm IST · USD 1,500.00',
        ],
        ['Chai Co'],
      ),
    ).toEqual([]);
  });

  it('names the English left, word by word', () => {
    expect(untranslatedWords(['भुगतान Pay now', 'Chairs'], ['Chai'])).toEqual([
      '"भुगतान Pay now" (Pay now)',
      '"Chairs" (Chairs)',
    ]);
  });
});
