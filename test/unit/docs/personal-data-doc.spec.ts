import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DATA_MAP, personalColumns, personalTables } from '../../../src/personal-data/data-map';
import { withDataMapSection } from '../../../src/personal-data/personal-data-doc';
import { retentionColumns } from '../../../src/retention/retention-schedule';

const ROOT = join(__dirname, '..', '..', '..');

describe('docs/personal-data.md "The personal-data map"', () => {
  const page = readFileSync(join(ROOT, 'docs', 'personal-data.md'), 'utf8');

  it('is what the generator writes from the map (run `npm run personal-data:doc` when this fails)', () => {
    expect(page).toBe(withDataMapSection(page));
  });

  it('lists every personal column of the map with its category, purpose and erasure', () => {
    for (const t of personalTables()) {
      for (const c of personalColumns(t)) {
        expect(page).toContain(`| \`${t.table}\` | \`${c.column}\``);
      }
    }
    expect(DATA_MAP.length).toBeGreaterThan(50);
  });

  it('ties every retention schedule line the map names to the schedule', () => {
    expect(retentionColumns('idempotency_records')).toContain('idempotency_records.response_raw');
    expect(retentionColumns('person_sessions')).toContain('person_sessions.token_hash');
  });
});
