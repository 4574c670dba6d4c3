import { Injectable } from '@nestjs/common';

/** The service's notion of now. Tests move it; SQL never uses now() for business rules. */
@Injectable()
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Test hook: shift the clock forward (or back) by ms. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
