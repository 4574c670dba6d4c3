// Writes docs/rules.md from the rules registry (src/rules/rule-catalog.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { RULES } from '../rules/rule-catalog';
import { renderRulesDoc } from '../rules/rules-doc';

const out = join(__dirname, '..', '..', 'docs', 'rules.md');
writeFileSync(out, renderRulesDoc(RULES));
process.stdout.write(`wrote ${out} (${RULES.all().length} rules)\n`);
