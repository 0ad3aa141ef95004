import type { Decider } from '../../../shared/schemas/approval';
import type { Container } from '../../../shared/schemas/container';
import type { UpdateSource } from '../../../shared/update-engine';
import type { HttpError } from '../http/http-error';
import type { UpdateTarget } from './update-target';

/**
 * What the update service asks of the approvals (docs/approvals.md), declared here so the update
 * capability does not depend on the approval service that runs through it.
 */
export interface ApprovalGate {
  /**
   * Passes when no approval is needed or this candidate is approved; otherwise throws 409 (and opens
   * one), remembering `requestedBy` (the caller of an API request) as one who may not approve it.
   */
  admit(container: Container, target: UpdateTarget, source: UpdateSource, requestedBy?: Decider): Promise<void>;
  /** What admit would refuse now, reading only (the preview); undefined when it would pass. */
  assess(container: Container, target: UpdateTarget): HttpError | undefined;
  /** The approved candidate's update was queued. */
  executed(container: Container, target: UpdateTarget, operationId: string): Promise<void>;
}

/**
 * The security gate (docs/security-scanning.md), declared here for the same reason: admit scans the
 * candidate when needed and throws 409 `security-blocked`; assess reads the last scan only.
 */
export interface SecurityGate {
  admit(container: Container, target: UpdateTarget): Promise<void>;
  /** What the update fixes and introduces (the candidate's scan against the running image's), once scanned. */
  delta(container: Container, target: UpdateTarget): object | undefined;
  assess(container: Container, target: UpdateTarget): HttpError | undefined;
}
