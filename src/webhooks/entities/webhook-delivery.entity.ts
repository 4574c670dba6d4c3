import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint. Unique on (event_id, endpoint_id). */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @PrimaryColumn('text') id: string;
  @Column('text') workspaceId: string;
  @Column('text') endpointId: string;
  @Column('text') eventId: string;
  @Column('text') eventType: string;
  @Column('text') status: WebhookDeliveryStatus;
  /** Every attempt row, scheduled and manual. */
  @Column('integer') attemptCount: number;
  /** Attempts of the retry schedule made so far (drives the backoff and the job id). */
  @Column('integer') scheduledAttempts: number;
  /** Redeliveries asked for / made. */
  @Column('integer') manualRequests: number;
  @Column('integer') manualAttempts: number;
  @Column('integer', { nullable: true }) lastStatusCode: number | null;
  @Column('text', { nullable: true }) lastError: string | null;
  /** When the next scheduled attempt is due; null once delivered or failed. */
  @Column('timestamptz', { nullable: true }) nextAttemptAt: Date | null;
  @Column('timestamptz', { nullable: true }) deliveredAt: Date | null;
  @Column('timestamptz', { nullable: true }) failedAt: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
