import { describe, expect, it } from 'vitest';
import { EDGE_EXPORT_MAX_CREDIT } from '../../../shared/edge/protocol';
import { ExportCredit } from './export-credit';

describe("an export's credit", () => {
  it('takes what the request granted, then waits for a credit frame', async () => {
    const credit = new ExportCredit(2);
    const signal = new AbortController().signal;
    expect(await credit.take(signal)).toBe(true);
    expect(await credit.take(signal)).toBe(true);
    let taken = false;
    const waiting = credit.take(signal).then((ok) => {
      taken = ok;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(taken).toBe(false);
    credit.grant(1);
    await waiting;
    expect(taken).toBe(true);
    expect(credit.remaining).toBe(0);
  });

  it('never holds more than the protocol allows, whatever a hub grants', () => {
    const credit = new ExportCredit(EDGE_EXPORT_MAX_CREDIT + 10);
    expect(credit.remaining).toBe(EDGE_EXPORT_MAX_CREDIT);
    credit.grant(EDGE_EXPORT_MAX_CREDIT);
    expect(credit.remaining).toBe(EDGE_EXPORT_MAX_CREDIT);
  });

  it('stops waiting when the request is cancelled', async () => {
    const credit = new ExportCredit(1);
    const controller = new AbortController();
    expect(await credit.take(controller.signal)).toBe(true);
    const waiting = credit.take(controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(await credit.take(controller.signal)).toBe(false);
  });
});
