import type { SystemSpec } from '@chi/spec';
import { memoryPolicyOf } from './instance-identity';

/**
 * Whether a possibly-sent attempt (a `before_send` without an `after_response`) is sent again on
 * resume. A scripted system in process under the notebook policy: yes (free, deterministic). A
 * system that keeps its own memory over HTTP: never, even a scripted one served by `chi serve`,
 * because its state outlived the interruption and may already hold that session (a state mutation
 * is not idempotent). A reference memory system in process: yes, because its memory died with the
 * process and is rebuilt from the resolved sessions only (`restoreInProcessMemory`), so the
 * possibly-sent session enters the rebuilt memory exactly once. A paid system: never.
 */
export function resendsUncertain(system: SystemSpec): boolean {
  if (memoryPolicyOf(system) === 'system') return system.kind === 'scripted';
  return system.evidenceClass === 'scripted_baseline';
}

/** The `abandoned` record's reason and the failure line's detail for a possibly-sent attempt. */
export function uncertainAttemptText(system: SystemSpec): { reason: string; detail: string } {
  const resend = resendsUncertain(system);
  if (memoryPolicyOf(system) === 'system')
    return resend
      ? {
          reason:
            'possibly sent before an interruption; re-sent because the system keeps its memory in this process: that memory died with the process and was rebuilt from the resolved sessions only, so this session enters it once',
          detail:
            'attempt outcome unknown after an interruption; in-process memory rebuilt from resolved sessions; sent again',
        }
      : {
          reason:
            'possibly sent before an interruption; never re-sent: the system keeps its own memory, which may already hold this session (a state mutation is not idempotent)',
          detail:
            'attempt outcome unknown after an interruption; stateful system (memory policy system): never sent again; block incomplete',
        };
  return resend
    ? {
        reason:
          'possibly sent before an interruption; re-sent because the system is scripted (free and deterministic)',
        detail: 'attempt outcome unknown after an interruption; scripted system: sent again',
      }
    : {
        reason:
          'possibly sent before an interruption; never re-sent (paid system), reservation retained',
        detail: 'attempt outcome unknown after an interruption; not sent again; block incomplete',
      };
}
