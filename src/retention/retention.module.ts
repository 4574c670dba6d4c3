import { Module } from '@nestjs/common';

import { WebModule } from '../web/web.module';
import { RetentionJob } from './retention.job';

/**
 * The retention schedule (docs/personal-data.md "Retention schedule"): RetentionJob, one sweep on
 * the Sweeper's timer that deletes what is past its period, a bounded batch per kind per run.
 */
@Module({
  imports: [WebModule],
  providers: [RetentionJob],
  exports: [RetentionJob],
})
export class RetentionModule {}
