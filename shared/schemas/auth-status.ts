import * as v from 'valibot';

/** One login method: `anonymous`, `basic` (per user) or `oidc` (per provider). */
export const AuthProviderSchema = v.object({ type: v.string(), name: v.string() });
/** GET /api/v1/auth/status: the login methods on offer, and real problems with them (an OIDC discovery that failed). */
export const AuthStatusSchema = v.object({ providers: v.array(AuthProviderSchema), errors: v.array(v.string()) });
export type AuthStatus = v.InferOutput<typeof AuthStatusSchema>;
