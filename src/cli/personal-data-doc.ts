// Writes the generated section of docs/personal-data.md from the personal-data map
// (src/personal-data/data-map.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { DATA_MAP } from '../personal-data/data-map';
import { withDataMapSection } from '../personal-data/personal-data-doc';

const out = join(__dirname, '..', '..', 'docs', 'personal-data.md');
writeFileSync(out, withDataMapSection(readFileSync(out, 'utf8')));
process.stdout.write(`wrote ${out} (${DATA_MAP.length} tables)\n`);
