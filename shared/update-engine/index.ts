export { checkStarted, DEFAULT_HEALTH_TIMING, delay, type HealthTiming, waitHealthy } from './container-health';
export {
  isTerminal,
  publicOperation,
  TEMPORARY_NAME,
  temporaryName,
  UPDATE_SOURCES,
  type UpdateJournal,
  type UpdateOperation,
  type UpdateOperationPhase,
  UpdateOperationSchema,
  type UpdateOperationStatus,
  type UpdateSource,
} from './operation';
export { OperationRecorder, type RecorderDeps } from './operation-recorder';
export { recoverOperation } from './recover-operation';
export { keepNewContainer, restoreOldContainer } from './restore';
export { rollBack, runUpdateOperation, type UpdateEngineDeps, type UpdatePlan } from './update-engine';
export {
  type QueuePosition,
  type ScheduledJob,
  type ShutdownLimits,
  UpdateScheduler,
  type UpdateSchedulerOptions,
} from './update-scheduler';
export { UpdateCancelledError, UpdateStepError } from './update-step-error';
