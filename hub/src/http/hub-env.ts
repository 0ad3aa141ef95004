import type { Principal } from '../auth/principal';

/** Per-request context shared by every middleware and handler. */
export interface HubEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The matched route's path template, for metrics labels of bounded cardinality. */
    route: string;
    /**
     * Set when the request was answered by dispatching another one through the app (a compat path
     * served by its /api/v1 route): that inner request is the one counted in the HTTP metrics.
     */
    servedByDispatch: boolean;
    /**
     * Set on that inner request: the /api/v1 twin of a compat request, already authenticated and
     * counted by the server-wide limit as the compat request itself.
     */
    compatTwin: boolean;
  };
}
