import type { Principal } from '../auth/principal';

/** Per-request context shared by every middleware and handler. */
export interface HubEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The matched route's path template, for metrics labels of bounded cardinality. */
    route: string;
  };
}
