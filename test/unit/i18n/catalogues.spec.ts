import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Catalogue, hasKey, readCatalogue, translator } from '../../../src/common/i18n/catalogue';
import { LANGUAGES } from '../../../src/common/i18n/language';
import { safeNext } from '../../../src/common/i18n/language.controller';

/** "a.b.c" for every leaf string of a catalogue (plural forms folded to their base key). */
function leaves(c: Catalogue, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(c)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') {
      out.set(key, v);
    } else if (v && typeof v === 'object') {
      for (const [kk, vv] of leaves(v as Catalogue, key)) {
        out.set(kk, vv);
      }
    } else {
      throw new Error(`${key}: not a string or an object`);
    }
  }
  return out;
}

const VIEWS = join(__dirname, '..', '..', '..', 'views');

function templates(dir = VIEWS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? templates(join(dir, e.name))
      : e.name.endsWith('.hbs')
        ? [join(dir, e.name)]
        : [],
  );
}

const en = leaves(readCatalogue('en'));

describe('catalogues (docs/languages.md)', () => {
  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has exactly the keys English has', (lang) => {
    const other = leaves(readCatalogue(lang));
    const base = (k: string) => k.replace(/_(zero|one|two|few|many|other)$/, '');
    const enKeys = new Set([...en.keys()].map(base));
    const otherKeys = new Set([...other.keys()].map(base));
    expect([...enKeys].filter((k) => !otherKeys.has(k))).toEqual([]);
    expect([...otherKeys].filter((k) => !enKeys.has(k))).toEqual([]);
  });

  it('Hindi never leaves an English sentence as it was', () => {
    const hi = leaves(readCatalogue('hi'));
    const same = [...en].filter(
      ([k, v]) => hi.get(k) === v && /[a-z]{3,}/.test(v.replace(/\{\{[^}]*\}\}/g, '')),
    );
    expect(same.map(([k]) => k)).toEqual([]);
  });

  it('keeps every {{placeholder}} of the English string in each translation', () => {
    for (const lang of LANGUAGES) {
      for (const [k, v] of leaves(readCatalogue(lang))) {
        const want = new Set((en.get(k) ?? v).match(/\{\{\s*\w+\s*\}\}/g) ?? []);
        const got = new Set(v.match(/\{\{\s*\w+\s*\}\}/g) ?? []);
        expect({ key: `${lang}:${k}`, placeholders: [...got].sort() }).toEqual({
          key: `${lang}:${k}`,
          placeholders: [...want].sort(),
        });
      }
    }
  });

  it('every {{t "key"}} in a template is in the catalogue', () => {
    const missing: string[] = [];
    for (const file of templates()) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\{\{t\s+"([^"]+)"/g)) {
        if (!hasKey(m[1]) && !en.has(`${m[1]}_one`)) {
          missing.push(`${file.slice(VIEWS.length + 1)}: ${m[1]}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('formats amounts and IST times for each language', () => {
    const at = new Date('2026-11-25T15:57:46.405Z');
    expect(translator('en').ist(at)).toBe('25 Nov 2026, 9:27 pm IST');
    expect(translator('hi').ist(at)).toMatch(/^25 नव॰ 2026, 9:27 (pm|अपराह्न) IST$/);
    expect(translator('en').rupees(355_000)).toBe('₹3,550.00');
    expect(translator('hi').rupees(355_000)).toBe('₹3,550.00');
    expect(translator('en').country('AE')).toBe('United Arab Emirates');
    expect(translator('hi').country('AE')).toBe('संयुक्त अरब अमीरात');
    expect(translator('hi').t('common.sign_out')).toBe('साइन आउट करें');
  });

  it('goes back only to a path of this site after the switch', () => {
    expect(safeNext('/app/pay/qt_1?x=1')).toBe('/app/pay/qt_1?x=1');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', '', 7]) {
      expect(safeNext(bad)).toBe('/app');
    }
  });
});

describe('relative times', () => {
  const now = new Date('2026-11-25T10:00:00Z');
  const at = (min: number) => new Date(now.getTime() + min * 60_000);
  it.each([
    [0.5, 'in less than a minute', 'एक मिनट से कम में'],
    [40, 'in 40 min', '40 मिनट में'],
    [-180, '3 h ago', '3 घंटे पहले'],
    [60 * 47, 'in 47 h', '47 घंटे में'],
    [60 * 48, 'in 2 days', '2 दिन में'],
    [60 * 24 * 1 + 60 * 24, 'in 2 days', '2 दिन में'],
  ])('%s min: "%s" / "%s"', (min, en, hi) => {
    expect(translator('en').relative(at(min), now)).toBe(en);
    expect(translator('hi').relative(at(min), now)).toBe(hi);
  });
});
