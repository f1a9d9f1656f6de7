import { extractJsonBlock } from '@chi/experiment';
import { experimentDeclarationProblems, experimentPlanProblems } from '@chi/experiment/test';
import type { BuiltInExperiment } from '@chi/experiments';
import { REPLY_KEY_PREFIX } from '@chi/experiments/internal';
import type { PlannedRequest, RunManifest } from '@chi/spec';
import { generatorInfo } from '@chi/worlds';
import type { PilotSettings } from '../pilot-settings';
import { buildRunPlan } from '../plan/plan';
import type { RenderedMessages } from '../plan/render-requests';
import { loadPromptTemplates, type PromptSet, promptRefs } from '../prompts';
import { buildManifest } from '../run-folder/manifest';
import { generateRunWorlds, worldSeedsFor } from '../run-folder/run-worlds';
import {
  scriptedDefinition,
  scriptedReply,
  scriptedSystemSpec,
} from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { withDeclaredTemplates } from './declared-templates';
import type { AnyExperiment } from './experiment';
import { REGISTERED_EXPERIMENTS } from './registry';

/** Options of {@link checkExperimentContract}. */
export interface ExperimentContractOptions {
  /**
   * Settings of the small run the contract plans (one world, two scripted systems, load 32 by
   * default). Only this experiment is planned.
   */
  readonly settings?: PilotSettings;
  /**
   * The prompt templates of the run, as given; by default the packaged ones plus the templates
   * the experiment declares (`Experiment.promptTemplates`, checked like a run checks them).
   */
  readonly prompts?: PromptSet;
  /**
   * A scripted reply to one rendered request (default: the `perfect` scripted system). Replies to
   * note-writing requests become the notes later requests read.
   */
  readonly reply?: (request: PlannedRequest, rendered: RenderedMessages) => string;
  /**
   * The built-in registry the experiment belongs to (default `BUILT_IN_EXPERIMENTS`): a built-in
   * not yet listed there (`[...BUILT_IN_EXPERIMENTS, mine]`) is keyed by its ID in the manifest,
   * and the default replies use its scripted policies.
   */
  readonly builtIns?: readonly BuiltInExperiment[];
}

/** What the contract walked through, for further checks by the caller (scoring, analysis). */
export interface ExperimentContractResult {
  /** Every problem found; empty when the experiment meets the contract. */
  readonly problems: string[];
  readonly manifest: RunManifest | null;
  readonly requests: readonly PlannedRequest[];
  /** The scripted reply text of every request, by request ID. */
  readonly replies: ReadonlyMap<string, string>;
  /** The user messages of every rendered request, by request ID (for blindness checks). */
  readonly prompts: ReadonlyMap<string, string>;
}

function smallSettings(): PilotSettings {
  return defaultOfflineSettings({
    systems: [scriptedSystemSpec('perfect'), scriptedSystemSpec('abstainer')],
    replicates: 1,
    loads: [32],
    controlsAtLoad: 32,
  });
}

function renderProblems(
  request: PlannedRequest,
  rendered: RenderedMessages,
  again: RenderedMessages,
): string[] {
  const problems: string[] = [];
  if (JSON.stringify(rendered) !== JSON.stringify(again))
    problems.push(`render: ${request.requestId} renders differently twice`);
  if (rendered.task !== request.task)
    problems.push(`render: ${request.requestId} rendered task ${rendered.task}`);
  const prompt = rendered.messages.at(-1)?.content ?? '';
  const header = extractJsonBlock(prompt, 'REQUEST') as { nonce?: unknown } | null;
  if (header?.nonce !== request.nonce)
    problems.push(`render: ${request.requestId} does not carry its nonce in a REQUEST block`);
  return problems;
}

/**
 * A module that declares its own templates renders each request from one of the run's templates
 * (its frozen copies), named with the version it has there.
 */
function declaredTemplateProblems(
  experiment: AnyExperiment,
  request: PlannedRequest,
  rendered: RenderedMessages,
  prompts: PromptSet,
): string[] {
  if (experiment.promptTemplates === undefined) return [];
  const { name, version } = rendered.template;
  return prompts.get(name)?.version === version
    ? []
    : [
        `render: ${request.requestId} names template ${name}@${version}, which is not among the run's prompts`,
      ];
}

/**
 * The experiment contract suite (the unstorage `testDriver` pattern): every registered
 * experiment passes it. It checks the declarations the framework asks for, then plans a small
 * run of this experiment alone (one world, two scripted systems), checks the plan (schema,
 * declared tasks and kinds, dependencies planned earlier and writing notes, the same registered
 * requests for every system, determinism), renders every request in plan order (deterministic,
 * the request's task and nonce in its REQUEST block; a module declaring its own templates names
 * one of the run's templates) and feeds scripted replies through the
 * notebooks the experiment keys. Scoring and analysis of the same experiment run through
 * `runPilot` with `templates: [id]`; see `experiment-contract.test.ts`.
 *
 * Returns every problem found, so it works under any test framework.
 *
 * @example
 * ```ts
 * expect((await checkExperimentContract(memoryExperiment)).problems).toEqual([]);
 * ```
 */
export function checkExperimentContract(
  experiment: AnyExperiment,
  options: ExperimentContractOptions = {},
): ExperimentContractResult {
  const problems = experimentDeclarationProblems(experiment);
  const settings = { ...(options.settings ?? smallSettings()), templates: [experiment.id] };
  const params = experiment.parametersFrom(settings);
  if (params === null) {
    problems.push('parametersFrom: the contract settings disable the experiment');
    return { problems, manifest: null, requests: [], replies: new Map(), prompts: new Map() };
  }
  if (!experiment.parameters.safeParse(params).success)
    problems.push('parameters: parametersFrom gives parameters its schema rejects');
  let manifest: RunManifest;
  let prompts: PromptSet;
  try {
    prompts = options.prompts ?? withDeclaredTemplates(loadPromptTemplates(), [experiment]);
    manifest = buildManifest({
      settings,
      worldSeeds: worldSeedsFor(settings.rootSeed, settings.replicates),
      prompts: promptRefs(prompts),
      generators: [generatorInfo()],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
      experiments: REGISTERED_EXPERIMENTS.includes(experiment)
        ? REGISTERED_EXPERIMENTS
        : [...REGISTERED_EXPERIMENTS.filter((pilot) => pilot.id !== experiment.id), experiment],
      ...(options.builtIns === undefined ? {} : { builtIns: options.builtIns }),
    });
  } catch (error) {
    problems.push(`manifest: ${error instanceof Error ? error.message : String(error)}`);
    return { problems, manifest: null, requests: [], replies: new Map(), prompts: new Map() };
  }
  if (JSON.stringify(experiment.parametersOf(manifest)) !== JSON.stringify(params))
    problems.push('parametersOf: the manifest does not carry the parameters parametersFrom gave');
  const plan = buildRunPlan(manifest, [experiment]);
  if (JSON.stringify(buildRunPlan(manifest, [experiment])) !== JSON.stringify(plan))
    problems.push('plan: not deterministic');
  problems.push(...experimentPlanProblems(experiment, plan.requests));

  const worlds = generateRunWorlds(manifest);
  const perfect = scriptedDefinition('perfect');
  const reply =
    options.reply ??
    ((_request: PlannedRequest, rendered: RenderedMessages) =>
      scriptedReply(
        perfect,
        1,
        rendered.messages.at(-1)?.content ?? '',
        undefined,
        undefined,
        options.builtIns,
      ));
  const notebooks = new Map<string, string>();
  for (const key of experiment.startingNotebooks?.(manifest) ?? [])
    for (const system of manifest.systems) notebooks.set(`${system.id}|${key}`, '');
  const notes = (systemId: string, key: string) => {
    const text = notebooks.get(`${systemId}|${key}`);
    if (text === undefined) throw new Error(`no notebook ${key} for ${systemId} yet`);
    return text;
  };
  const replies = new Map<string, string>();
  const userPrompts = new Map<string, string>();
  for (const request of plan.requests) {
    const context = { request, manifest, params, worlds, prompts, notes };
    let rendered: RenderedMessages;
    try {
      rendered = experiment.render(context);
    } catch (error) {
      problems.push(`render: ${request.requestId} threw ${String(error)}`);
      continue;
    }
    problems.push(...renderProblems(request, rendered, experiment.render(context)));
    problems.push(...declaredTemplateProblems(experiment, request, rendered, prompts));
    const text = reply(request, rendered);
    replies.set(request.requestId, text);
    userPrompts.set(
      request.requestId,
      rendered.messages
        .filter((message) => message.role === 'user')
        .map((message) => message.content)
        .join('\n'),
    );
    if (request.writesNotebook && experiment.notebookKey !== undefined) {
      notebooks.set(`${request.systemId}|${experiment.notebookKey(request)}`, text);
      notebooks.set(
        `${request.systemId}|${REPLY_KEY_PREFIX}${experiment.notebookKey(request)}`,
        text,
      );
    }
  }
  return { problems, manifest, requests: plan.requests, replies, prompts: userPrompts };
}
