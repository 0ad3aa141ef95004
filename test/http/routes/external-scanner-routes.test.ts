/**
 * DD_SECURITY_SCANNER=grype through the hub's HTTP API on a real socket, the Node entry running the
 * fixture `grype` (test/support/fixtures/scanners/: neither Grype nor its database can be had here)
 * named by DD_SECURITY_SCANNER_PATH; and the start-up refusals of trivy and grype: absent from PATH,
 * and on a runtime that runs no processes. The SBOMs are built by hand, as in security-routes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageSbom } from '../../../hub/src/security/sbom-model';
import type { SbomSource } from '../../../hub/src/security/security-service';
import { ConfigError } from '../../../shared/config/config-error';
import { containerRecord } from '../../support/container-fixture';
import { type FakeScanner, installFakeScanner } from '../../support/fake-scanners';
import { createMemoryHub, createServerHub, type HubClient } from '../../support/hub-harness';

const IMAGE: Omit<ImageSbom, 'imageRef'> = {
  imageId: 'sha256:running',
  distro: { id: 'debian', versionId: '12' },
  generatedAt: '2026-11-01T00:00:00Z',
  packages: [
    {
      type: 'deb',
      namespace: 'debian',
      name: 'libssl3',
      version: '3.0.11-1~deb12u1',
      purl: 'pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12',
      source: { name: 'openssl', version: '3.0.11-1~deb12u1' },
      licenses: [],
      location: '/var/lib/dpkg/status',
    },
    { type: 'npm', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', licenses: [], location: '/app' },
  ],
};
const sbom: SbomSource = { sbomFor: async (container) => ({ ...IMAGE, imageRef: container.image.name }) };
const id = (n: number) => n.toString(16).padStart(64, '0');
const plain = containerRecord({ id: id(1), name: 'plain' });

async function json<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

async function refusal(start: () => Promise<HubClient>): Promise<string> {
  const error = await start().then(
    async (client) => {
      await client.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

describe('DD_SECURITY_SCANNER=grype on a real socket', () => {
  let grype: FakeScanner;
  let client: HubClient;

  beforeAll(async () => {
    grype = installFakeScanner('grype');
    client = await createServerHub(
      { DD_SECURITY_SCANNER: 'grype', DD_SECURITY_SCANNER_PATH: grype.binary },
      { security: { sbom } },
    );
    await client.hub.parts.containers.put(plain);
  });
  afterAll(async () => {
    await client?.close();
    grype?.remove();
  });

  it('says which tool scans, and its version, as the database state', async () => {
    const body = await json<Record<string, unknown>>(
      await client.request('/api/v1/containers/security/vulnerabilities'),
    );
    expect(body['database']).toEqual({ state: 'external', scanner: 'grype', version: '0.84.0', offline: false });
  });

  it('scans with the tool: its findings served by the container routes and the aggregate', async () => {
    const container = await json<{ security: Record<string, unknown> }>(
      await client.request(`/api/v1/containers/${plain.id}/scan`, { method: 'POST' }),
    );
    expect(container.security).toMatchObject({
      status: 'scanned',
      scanner: 'grype',
      target: 'current',
      database: { source: 'grype 0.84.0' },
      packages: 2,
      summary: { critical: 0, high: 1, medium: 1, low: 0, unknown: 0 },
    });
    const scan = await json<{ vulnerabilities: Record<string, unknown>[] }>(
      await client.request(`/api/v1/containers/${plain.id}/vulnerabilities`),
    );
    expect(scan.vulnerabilities).toEqual([
      {
        id: 'CVE-2021-23337',
        aliases: [],
        package: { type: 'npm', name: 'lodash', purl: 'pkg:npm/lodash@4.17.20', ecosystem: 'npm' },
        installedVersion: '4.17.20',
        fixedVersions: ['4.17.21'],
        severity: 'high',
        score: 7.2,
        summary: 'nodejs-lodash: command injection via template',
        url: 'https://github.com/advisories/CVE-2021-23337',
      },
      {
        id: 'CVE-2023-5678',
        aliases: [],
        package: { type: 'deb', name: 'libssl3', purl: IMAGE.packages[0]?.purl, ecosystem: 'deb' },
        installedVersion: '3.0.11-1~deb12u1',
        fixedVersions: ['3.0.11-1~deb12u2'],
        severity: 'medium',
        score: 5.3,
        summary: expect.stringMatching(/^openssl: Generating excessively long X9\.42 DH keys/),
        url: 'https://security-tracker.debian.org/tracker/CVE-2023-5678',
      },
    ]);
    const aggregate = await json<{ scanned: number; images: { vulnerabilities: unknown[] }[] }>(
      await client.request('/api/v1/containers/security/vulnerabilities'),
    );
    expect(aggregate.scanned).toBe(1);
    expect(aggregate.images[0]?.vulnerabilities).toHaveLength(2);
  });
});

describe('a grype that fails', () => {
  it('fails that scan with the tool’s error (500), kept on the container; the hub goes on', async () => {
    const grype = installFakeScanner('grype');
    // The hub hands the tool its GRYPE_* variables: this one makes the fixture exit 1.
    const client = await createServerHub(
      { DD_SECURITY_SCANNER: 'grype', DD_SECURITY_SCANNER_PATH: grype.binary, GRYPE_FIXTURE_MODE: 'fail' },
      { security: { sbom } },
    );
    try {
      await client.hub.parts.containers.put(plain);
      const response = await client.request(`/api/v1/containers/${plain.id}/scan`, { method: 'POST' });
      expect(response.status).toBe(500);
      const scan = await json<{ status: string; error: string }>(
        await client.request(`/api/v1/containers/${plain.id}/vulnerabilities`),
      );
      expect(scan).toMatchObject({
        status: 'failed',
        error: 'grype exited with 1: [0000] ERROR the fixture was told to fail',
      });
      expect((await client.request('/api/v1/containers')).status).toBe(200);
    } finally {
      await client.close();
      grype.remove();
    }
  });
});

describe('start-up refusals', () => {
  it('refuses trivy or grype when the binary is not on PATH, naming the variable', async () => {
    const message = await refusal(() => createServerHub({ DD_SECURITY_SCANNER: 'trivy', PATH: '/nonexistent' }));
    expect(message).toMatch(/^DD_SECURITY_SCANNER: trivy was not found on PATH/);
    expect(
      await refusal(() =>
        createServerHub({ DD_SECURITY_SCANNER: 'grype', DD_SECURITY_SCANNER_PATH: '/nonexistent/grype' }),
      ),
    ).toBe('DD_SECURITY_SCANNER_PATH: /nonexistent/grype is not an executable file');
  });

  it('refuses trivy and grype on a runtime that hands in no process runner (Workers)', async () => {
    expect(await refusal(() => createMemoryHub({ DD_SECURITY_SCANNER: 'grype' }, { security: { sbom } }))).toMatch(
      /^DD_SECURITY_SCANNER: grype runs as a process on the hub's host, which the test runtime cannot start; use osv/,
    );
  });
});
