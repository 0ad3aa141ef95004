// The rollout routes (docs/group-policies.md "Staged rollouts"), typed from the schemas that
// validate them: `import type` only, so nothing of valibot or the hub is bundled.
import type { Rollout, RolloutStartBody } from '../../../../shared/schemas/rollout';
import { call, type Page } from '../../api';

export type { Rollout, RolloutStartBody };
export type RolloutHost = Rollout['hosts'][number];
export type RolloutAction = 'pause' | 'resume' | 'abort';

const part = encodeURIComponent;

export const rolloutsApi = {
  list: () => call<Page<Rollout>>('/rollouts?limit=50'),
  start: (body: RolloutStartBody) => call<Rollout>('/rollouts', { method: 'POST', body }),
  act: (id: string, action: RolloutAction) => call<Rollout>(`/rollouts/${part(id)}/${action}`, { method: 'POST' }),
};
