import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';

/** Where the pages' own stylesheet and script live (views/pay/assets), from src/ or dist/. */
const ASSET_DIR = join(__dirname, '..', '..', 'views', 'pay', 'assets');

/**
 * The hosted pages' stylesheet and script, read once at boot and served same-origin from
 * /app/assets/ (the pages' CSP allows nothing else: no inline style or script, no third party).
 */
@Injectable()
export class PayAssets {
  readonly css = readFileSync(join(ASSET_DIR, 'pay.css'), 'utf8');
  readonly js = readFileSync(join(ASSET_DIR, 'pay.js'), 'utf8');
}
