/**
 * A TOTP code works once, restarts included: the last step a user signed in with is kept in the
 * hub's storage until codes of that step are refused anyway (RFC 6238 §5.2).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage } from 'unstorage';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryHub, createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { BOB_PASSWORD, RECOVERY_CODES, TOTP_SECRET, totp, USERS_ENV } from './auth-fixtures';

const STEP_MS = 30_000;
const signIn = (client: HubClient, body: Record<string, unknown>) =>
  client.request('/api/v1/auth/login', jsonInit('POST', { username: 'bob', password: BOB_PASSWORD, ...body }));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('TOTP replay across a restart with file storage [server]', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a used code after a restart inside its window, and takes the next one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dd-totp-'));
    dirs.push(dir);
    const env = { ...USERS_ENV, DD_STORE_DRIVER: 'fs', DD_STORE_PATH: dir };
    // Early in a step, so the whole test runs well inside the used code's window.
    const intoStep = Date.now() % STEP_MS;
    if (intoStep > STEP_MS - 5_000) await new Promise((resolve) => setTimeout(resolve, STEP_MS - intoStep + 50));
    const code = totp(Date.now());

    const first = await createServerHub(env);
    try {
      expect((await signIn(first, { otp: code })).status).toBe(200);
      expect((await signIn(first, { otp: code })).status).toBe(401);
    } finally {
      await first.close();
    }
    // What is kept on disk names the step, never the code or the secret.
    const stored = (await Promise.all((await filesUnder(dir)).map((file) => readFile(file, 'utf8')))).join('\n');
    expect(stored).toContain(`"step":${Math.floor(Date.now() / STEP_MS)}`);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(TOTP_SECRET);

    const second = await createServerHub(env);
    try {
      expect((await signIn(second, { otp: code })).status).toBe(401);
      // The next step's code (within the accepted drift) is new, so it passes: the restart broke nothing else.
      expect((await signIn(second, { otp: totp(Date.now() + STEP_MS) })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('TOTP replay memory over time [memory]', () => {
  it('refuses the used step and older ones, forgets the record once its window has passed', async () => {
    let clock = Date.parse('2026-06-01T10:00:00Z') + 1_000;
    const step = Math.floor(clock / STEP_MS);
    const storage = createStorage();
    const record = () => storage.getItem('auth:totp-used:bob');
    const code = totp(clock);
    const first = await createMemoryHub(USERS_ENV, { now: () => clock, storage });
    try {
      expect((await signIn(first, { otp: code })).status).toBe(200);
      // The previous step's code is still within the drift window, but older than the one used.
      expect((await signIn(first, { otp: totp(clock - STEP_MS) })).status).toBe(401);
      expect(await record()).toEqual({ step, expiresAt: (step + 2) * STEP_MS });
    } finally {
      await first.close();
    }

    // A restart on the same storage, one step later: the code is still inside its window, and refused.
    clock += STEP_MS;
    const second = await createMemoryHub(USERS_ENV, { now: () => clock, storage });
    try {
      expect((await signIn(second, { otp: code })).status).toBe(401);
    } finally {
      await second.close();
    }

    // A restart after the window: the spent record blocks nothing, and a fresh code replaces it.
    clock += 2 * STEP_MS;
    const third = await createMemoryHub(USERS_ENV, { now: () => clock, storage });
    try {
      expect((await signIn(third, { otp: code })).status).toBe(401);
      expect((await signIn(third, { otp: totp(clock - STEP_MS) })).status).toBe(200);
      expect(await record()).toEqual({ step: step + 2, expiresAt: (step + 4) * STEP_MS });
    } finally {
      await third.close();
    }
  });

  it('lets exactly one of two simultaneous sign-ins with one code through', async () => {
    const client = await createMemoryHub(USERS_ENV);
    try {
      const code = totp(Date.now());
      const answers = await Promise.all(Array.from({ length: 4 }, () => signIn(client, { otp: code })));
      expect(answers.map((response) => response.status).sort()).toEqual([200, 401, 401, 401]);
    } finally {
      await client.close();
    }
  });

  it('lets exactly one of two simultaneous sign-ins with one recovery code through', async () => {
    const client = await createMemoryHub(USERS_ENV);
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => signIn(client, { recoveryCode: RECOVERY_CODES[2] })),
      );
      expect(answers.map((response) => response.status).sort()).toEqual([200, 401, 401, 401]);
    } finally {
      await client.close();
    }
  });
});
