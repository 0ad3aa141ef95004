/**
 * Label overrides (docs/label-overrides.md) on an edge agent's container, end to end: the hub on a
 * real socket with a Docker action trigger, a real agent (createEdgeAgent) on its own dockerd, a
 * plain registry with 1.0.0 and 2.0.0. An override is kept when the hub's update re-creates the
 * container (new id, same identity), and dd.watch=false hides its update at once until cleared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAgent } from '../../edge-agent/src/agent/edge-agent';
import type { Container } from '../../shared/schemas/container';
import {
  type EdgeUpdateBed,
  edgeUpdateApi,
  runApp,
  startEdgeUpdateBed,
  startInProcessAgent,
  until,
} from '../support/edge-update-bed';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';

const AGENT = 'edge-overrides';

describe('label overrides on an edge agent container', () => {
  let bed: EdgeUpdateBed;
  let hub: HubClient;
  let agent: EdgeAgent;
  const { json, byName, pending, requestUpdate, settled } = edgeUpdateApi(
    (path, init) => hub.request(path, init),
    AGENT,
  );
  const put = (id: string, labels: Record<string, string>) =>
    json<Container>(`/api/v1/containers/${id}/label-overrides`, jsonInit('PUT', { labels }));

  beforeAll(async () => {
    bed = await startEdgeUpdateBed(AGENT);
    hub = await createServerHub({
      DD_EDGE_AUTHORIZED_KEYS: bed.authorizedKeys,
      DD_ACTION_DOCKER_UPDATE_HEALTHTIMEOUT: '5',
    });
    agent = await startInProcessAgent(bed, hub.url as string);
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await hub?.close();
    await bed?.stop();
  }, 60_000);

  it("keeps an override across the hub's update of the container, and dd.watch=false hides an update until cleared", async () => {
    await runApp(bed, 'web', 'overrides/web', { from: 'http', to: 'http' });
    const before = await pending('web');
    const renamed = await put(before.id, { 'dd.display.name': 'Shop front' });
    expect(renamed).toMatchObject({ agent: AGENT, displayName: 'Shop front', updateAvailable: true });

    const operation = await settled(await requestUpdate(before));
    expect(operation.status).toBe('succeeded');
    const after = await until(async () => {
      const record = await byName('web');
      return record && record.id !== before.id && record.image.tag.value === '2.0.0' ? record : undefined;
    }, 'web re-created at 2.0.0');
    expect(after.displayName).toBe('Shop front');
    expect(after.effectiveLabels?.['dd.display.name']).toEqual({ value: 'Shop front', source: 'override' });

    // Back to an update pending: 1.0.0 runs again under the same name, and 2.0.0 is offered.
    await bed.docker.getContainer(after.id).remove({ force: true });
    const again = await runApp(bed, 'web', 'overrides/web', { from: 'http', to: 'http' });
    const offered = await pending('web', { id: again });
    expect(offered.displayName).toBe('Shop front');
    const hidden = await put(again, { 'dd.display.name': 'Shop front', 'dd.watch': 'false' });
    expect(hidden).toMatchObject({ watched: false, updateAvailable: false });
    await json('/api/v1/containers/watch', { method: 'POST' });
    expect(await byName('web')).toMatchObject({ id: again, watched: false, updateAvailable: false });

    const cleared = await json<Container>(`/api/v1/containers/${again}/label-overrides`, { method: 'DELETE' });
    // Re-checked through the agent right away.
    expect(cleared).toMatchObject({ watched: true, updateAvailable: true, displayName: 'web' });
    // startWatchedApp labels it dd.watch=true: the label is back in force.
    expect(cleared.effectiveLabels?.['dd.watch']).toEqual({ value: 'true', source: 'label' });
  });
});
