import { EDGE_CLOSE } from '../../../shared/edge/protocol';

export interface CloseMeaning {
  meaning: string;
  /** How loudly the agent reports it: some closes are routine, some need the user. */
  level: 'info' | 'warn' | 'error';
  /** Refusals that will not clear up soon are retried at the longest step. */
  retryAtMaxStep: boolean;
}

/** What each close code means to the agent (the table of docs/edge-protocol.md). */
const MEANINGS: Record<number, CloseMeaning> = {
  [EDGE_CLOSE.normal]: { meaning: 'normal close', level: 'info', retryAtMaxStep: false },
  [EDGE_CLOSE.goingAway]: { meaning: 'the hub is shutting down', level: 'info', retryAtMaxStep: false },
  1006: { meaning: 'connection lost (no close frame)', level: 'warn', retryAtMaxStep: false },
  [EDGE_CLOSE.tooLarge]: {
    meaning: 'a frame was over the size limit (4 MiB; 32 KiB before sign-in)',
    level: 'error',
    retryAtMaxStep: false,
  },
  [EDGE_CLOSE.internalError]: { meaning: 'hub internal error', level: 'warn', retryAtMaxStep: false },
  [EDGE_CLOSE.superseded]: {
    meaning: 'superseded by a newer session of this agent (is another agent running with the same key and name?)',
    level: 'warn',
    retryAtMaxStep: true,
  },
  [EDGE_CLOSE.signInFailed]: {
    meaning: 'sign-in failed: the hub does not know this key, or the signature did not verify',
    level: 'error',
    retryAtMaxStep: false,
  },
  [EDGE_CLOSE.keyRevoked]: {
    meaning: 'the key of this agent was revoked on the hub',
    level: 'error',
    retryAtMaxStep: true,
  },
  [EDGE_CLOSE.nameTaken]: {
    meaning: 'the agent name is bound to another key on the hub (choose another --name)',
    level: 'error',
    retryAtMaxStep: false,
  },
  [EDGE_CLOSE.invalidFrame]: { meaning: 'invalid frame (protocol error)', level: 'error', retryAtMaxStep: false },
  [EDGE_CLOSE.signInTimeout]: { meaning: 'sign-in deadline passed', level: 'warn', retryAtMaxStep: false },
  [EDGE_CLOSE.heartbeatMissed]: { meaning: 'heartbeat missed', level: 'warn', retryAtMaxStep: false },
  [EDGE_CLOSE.unsupportedVersion]: {
    meaning: 'protocol version not supported by the hub',
    level: 'error',
    retryAtMaxStep: false,
  },
};

export function closeMeaning(code: number): CloseMeaning {
  return MEANINGS[code] ?? { meaning: `close code ${code}`, level: 'warn', retryAtMaxStep: false };
}
