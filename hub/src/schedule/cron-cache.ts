import { Cron } from 'croner';

/** Distinct expressions kept; past it the cache starts over (a fleet announces a handful). */
const MAX_EXPRESSIONS = 1_024;

/**
 * Parsed cron expressions, one paused Cron per expression. croner's Cron holds a 10,000-entry year
 * table (80 KB): one per agent watcher was 800 MB for 10,000 agents (heap snapshot of the edge
 * benchmark), and one per sign-in's validation as much garbage. A paused Cron only computes
 * (nextRun is a pure function of its argument), so jobs with the same expression share one.
 */
export class CronCache {
  private readonly crons = new Map<string, Cron>();

  /** The parsed expression; throws croner's error for an invalid one (which is not kept). */
  of(expression: string): Cron {
    let cron = this.crons.get(expression);
    if (!cron) {
      cron = new Cron(expression, { paused: true });
      if (this.crons.size >= MAX_EXPRESSIONS) this.crons.clear();
      this.crons.set(expression, cron);
    }
    return cron;
  }
}
