import { describe, expect, it } from 'vitest';
import { createUpgradePacer, pacedUpgrades } from './upgrade-pacer';

/** A pacer on a clock the test moves, whose turns end when the test says. */
function rig(budgetMs = 10) {
  let clock = 0;
  const turnEnds: (() => void)[] = [];
  const pacer = createUpgradePacer({ budgetMs, now: () => clock, nextTurn: (work) => turnEnds.push(work) });
  const admitted: number[] = [];
  /** An upgrade whose admitted work takes `costMs` of the clock. */
  const upgrade = (id: number, costMs: number) =>
    pacer.admit().then(() => {
      admitted.push(id);
      clock += costMs;
    });
  const settle = async () => {
    for (let i = 0; i < 50; i++) await Promise.resolve();
  };
  /**
   * Upgrades arriving one after another in one poll phase: Node runs each socket's callback, then
   * the promise continuations it queued, before the next socket's.
   */
  const arrive = async (costs: [id: number, costMs: number][]) => {
    for (const [id, costMs] of costs) {
      void upgrade(id, costMs);
      await settle();
    }
  };
  const endTurn = async () => {
    const ends = turnEnds.splice(0);
    for (const end of ends) end();
    await settle();
  };
  return { pacer, admitted, arrive, settle, endTurn, turnEnds };
}

describe('the upgrade pacer', () => {
  it('lets a lone upgrade through at once, and a few cheap ones in the same turn', async () => {
    const { admitted, arrive, pacer } = rig();
    await arrive([1, 2, 3, 4, 5].map((id) => [id, 1]));
    expect(admitted).toEqual([1, 2, 3, 4, 5]);
    expect(pacer.waiting).toBe(0);
  });

  it('holds a burst past the budget for the next turns, a budget a turn, in arrival order', async () => {
    const { admitted, arrive, endTurn, pacer, turnEnds } = rig(10);
    // Twenty upgrades of 3 ms each: four fit in a 10 ms turn (the fourth starts at 9 ms).
    await arrive(Array.from({ length: 20 }, (_, index) => [index + 1, 3]));
    expect(admitted).toEqual([1, 2, 3, 4]);
    expect(pacer.waiting).toBe(16);
    expect(turnEnds).toHaveLength(1);
    await endTurn();
    expect(admitted).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await endTurn();
    await endTurn();
    await endTurn();
    expect(admitted).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    expect(pacer.waiting).toBe(0);
    // Nothing waits: the turn that ends resets the budget, and no further turn is asked for.
    await endTurn();
    expect(turnEnds).toHaveLength(0);
  });

  it('a turn that ends lets the waiting upgrade go first, and a newcomer then passes at once', async () => {
    const { admitted, arrive, endTurn } = rig(10);
    await arrive([
      [1, 12],
      [2, 1],
    ]);
    expect(admitted).toEqual([1]);
    // Turn ended: 2 goes first; 3 arrives during that turn with budget left, behind nobody.
    await endTurn();
    await arrive([[3, 1]]);
    expect(admitted).toEqual([1, 2, 3]);
  });

  it('admits at least one upgrade a turn, however long one takes', async () => {
    const { admitted, arrive, endTurn } = rig(10);
    await arrive([
      [1, 50],
      [2, 50],
      [3, 50],
    ]);
    expect(admitted).toEqual([1]);
    await endTurn();
    expect(admitted).toEqual([1, 2]);
    await endTurn();
    expect(admitted).toEqual([1, 2, 3]);
  });
});

describe('pacedUpgrades', () => {
  const env = (upgrade: string | undefined, destroyed: boolean) => ({
    incoming: { headers: { upgrade }, socket: { destroyed } },
  });

  it('admits WebSocket upgrades through the pacer, lets other requests by, and drops a closed socket', async () => {
    const reached: string[] = [];
    let admissions = 0;
    const pacer = {
      admit: async () => {
        admissions += 1;
      },
      waiting: 0,
    };
    const fetch = pacedUpgrades(pacer, (request) => {
      reached.push(new URL(request.url).pathname);
      return new Response('ok');
    });
    expect((await fetch(new Request('http://hub/api/v1/health'), env(undefined, false))).status).toBe(200);
    expect(admissions).toBe(0);
    expect((await fetch(new Request('http://hub/api/v1/edge/connect'), env('WebSocket', false))).status).toBe(200);
    expect(admissions).toBe(1);
    // The agent gave up while it waited: the hub is not asked to start a session for it.
    expect((await fetch(new Request('http://hub/api/v1/edge/gone'), env('websocket', true))).status).toBe(400);
    expect(admissions).toBe(2);
    expect(reached).toEqual(['/api/v1/health', '/api/v1/edge/connect']);
  });
});
