import { All, Controller } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import { AppController } from './current-person.decorator';

/**
 * Any path under /app that no other controller answers: an HTML 404 page (WebExceptionFilter)
 * rather than the API's JSON error. Registered by AppNotFoundModule, imported last in AppModule,
 * so every real /app route is matched before this one. The page's words come from the catalogue
 * by the code (errors.code.not_found, src/web/error-words.ts); the message here is the fallback.
 */
@AppController()
@Controller('app')
export class AppNotFoundController {
  @All('*path')
  notFound(): never {
    throw new AppError(
      404,
      'invalid_request',
      'not_found',
      'There is no page at this address. Check the link, or start again from the app.',
    );
  }
}
