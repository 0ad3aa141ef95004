import * as v from 'valibot';

export const UPDATE_MODES = ['notify', 'manual', 'auto'] as const;

/** Settings (http-interface §2.13). */
export const SettingsSchema = v.object({
  internetlessMode: v.boolean(),
  updateMode: v.picklist(UPDATE_MODES),
  /** Every update waits for an approval (docs/approvals.md); a container's `dd.update.approval` label wins. */
  approvalRequired: v.boolean(),
});
export type Settings = v.InferOutput<typeof SettingsSchema>;

/** PATCH body: any subset of the fields; unknown fields are refused so a typo is not silently lost. */
export const SettingsPatchSchema = v.strictObject({
  internetlessMode: v.optional(v.boolean()),
  updateMode: v.optional(v.picklist(UPDATE_MODES)),
  approvalRequired: v.optional(v.boolean()),
});
export type SettingsPatch = v.InferOutput<typeof SettingsPatchSchema>;

export const DEFAULT_SETTINGS: Settings = { internetlessMode: false, updateMode: 'manual', approvalRequired: false };
