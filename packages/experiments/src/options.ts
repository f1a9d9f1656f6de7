import type { ExperimentSettings } from '@chi/experiment';

/**
 * An integer option of `settings.experimentOptions` (set by a flag or configuration-file field an
 * experiment's parameter schema declares), or null when the run does not set it.
 */
export function integerOption(settings: ExperimentSettings, option: string): number | null {
  const value = settings.experimentOptions?.[option];
  return typeof value === 'number' ? value : null;
}
