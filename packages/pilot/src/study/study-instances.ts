import type { ChatModel, StudyCarriedInstances, SystemSpec } from '@chi/spec';
import { RunPlanSchema } from '@chi/spec/internal';
import { memoryPolicyOf, requestInstance } from '../memory-systems/instance-identity';
import { readJsonFile, runPaths } from '../run-folder/run-folder';

/** What a study carries of its systems that keep their own memory, by system ID. */
export type CarriedInstances = Readonly<Record<string, StudyCarriedInstances>>;

/** How one session continues and hands on the memory of the systems that keep their own. */
export interface InstanceCarry {
  /** `runPilot`'s `prepareModels`: imports the carried states before the first request. */
  prepare(
    models: ReadonlyMap<string, ChatModel>,
    manifest: unknown,
    resuming: boolean,
  ): Promise<void>;
  /** What the finished session hands on (undefined when no system keeps its own memory). */
  handOn(runDir: string): Promise<Record<string, StudyCarriedInstances> | undefined>;
}

/** The instance IDs of a system in a session's plan (`chi-<study hash>/<system>/<scope>`), sorted. */
async function planInstanceIds(
  runDir: string,
  systemId: string,
  studyManifestSha256: string,
): Promise<string[]> {
  const plan = await readJsonFile(runPaths(runDir).plan, RunPlanSchema);
  const ids = plan.requests
    .filter((request) => request.systemId === systemId)
    .map((request) => requestInstance(request, studyManifestSha256).instanceId);
  return [...new Set(ids)].sort();
}

/**
 * The memory carry of one study session (docs/protocol.md, "Studies"). A system under memory
 * policy `system` keeps its instance IDs from session to session (rooted in the study manifest's
 * hash). With the instance-control extension its instances' states are exported when the session
 * ends and stored in the session's hash-chained state (`carry: "exported"`), and imported before
 * the next session's first request, so a moved study (another machine, a fresh server) continues
 * from exactly the state recorded. An in-process system imports on every start (its memory died
 * with the process; the session's own resolved requests are then replayed to it); a served
 * system only when its session starts, never on a resume (its memory outlived the interruption).
 * Without the extension the state lives in the system and the study carries the identity only
 * (`carry: "identity"`).
 */
export function instanceCarry(
  systems: readonly SystemSpec[],
  carried: CarriedInstances,
  studyManifestSha256: string,
): InstanceCarry {
  const keeping = systems.filter((system) => memoryPolicyOf(system) === 'system');
  let held: ReadonlyMap<string, ChatModel> | undefined;
  return {
    async prepare(models, _manifest, resuming) {
      held = models;
      for (const system of keeping) {
        const control = models.get(system.id)?.instanceControl;
        if (control === undefined || (resuming && system.kind !== 'scripted')) continue;
        for (const [instanceId, state] of Object.entries(carried[system.id]?.states ?? {}))
          if (state !== null) await control.importState(instanceId, state);
      }
    },
    async handOn(runDir) {
      if (keeping.length === 0) return undefined;
      const handed: Record<string, StudyCarriedInstances> = {};
      for (const system of keeping) {
        const ids = await planInstanceIds(runDir, system.id, studyManifestSha256);
        const control = held?.get(system.id)?.instanceControl;
        if (control === undefined && system.instanceControl !== undefined)
          throw new Error(
            `study session: ${system.id}'s state cannot be exported: its model was not prepared`,
          );
        if (control === undefined) {
          handed[system.id] = {
            carry: 'identity',
            states: Object.fromEntries(ids.map((id) => [id, null])),
          };
          continue;
        }
        const states: StudyCarriedInstances['states'] = {};
        for (const id of ids) {
          const exported = await control.exportState(id);
          states[id] = { state: exported.state, bytesStored: exported.bytesStored };
        }
        handed[system.id] = { carry: 'exported', states };
      }
      return handed;
    },
  };
}
