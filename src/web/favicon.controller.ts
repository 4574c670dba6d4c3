import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/** The pages' icon (views/assets/favicon.svg), read once. */
const ICON = readFileSync(join(__dirname, '..', '..', 'views', 'assets', 'favicon.svg'), 'utf8');

/**
 * GET /favicon.ico: what a browser asks for on any page that names no icon (Swagger UI at /docs, a
 * JSON answer opened in a tab): the pages' SVG icon, cached for a day, through the same pipeline
 * as every route, instead of a 404 JSON (docs/app.md).
 */
@ApiExcludeController()
@Controller()
export class FaviconController {
  @Get('favicon.ico')
  @Header('Content-Type', 'image/svg+xml')
  @Header('Cache-Control', 'public, max-age=86400')
  icon(): string {
    return ICON;
  }
}
