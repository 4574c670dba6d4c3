import { Module } from '@nestjs/common';

import { LanguageController } from './language.controller';

/** English and Hindi for person-facing pages (docs/languages.md). */
@Module({ controllers: [LanguageController] })
export class I18nModule {}
