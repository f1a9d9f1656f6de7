import { existsSync } from 'node:fs';
import {
  CatalogError,
  catalogEntry,
  createFileLedger,
  createMemoryLedger,
  createOpenRouterModel,
  fetchCatalog,
  type InspectableLedger,
  type ReasoningEffort,
} from '@chi/openrouter';
import { matchesProviderSlug } from '@chi/openrouter/internal';
import { createJsonlWriter, type JsonlWriter } from '@chi/run';
import { readRunJsonl } from '@chi/run/internal';
import { parseProbeReply } from '@chi/scoring';
import type { ChatModel, ModelCatalog, SmokeResult, SystemSpec } from '@chi/spec';
import { SmokeResultSchema } from '@chi/spec/internal';
import { renderSmoke } from '../plan/render-requests';
import { loadPromptTemplates, type PromptSet } from '../prompts';
import { apiKeyForSystem } from './system-models';

/** Options of {@link runSmokeChecks}. */
export interface SmokeOptions {
  /** The live systems to check (scripted systems need no smoke check and are skipped). */
  readonly systems: readonly SystemSpec[];
  /** API keys by environment variable name; each system reads only the one it names. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Shorthand for `env: { OPENROUTER_API_KEY: apiKey }`; never written anywhere. */
  readonly apiKey?: string;
  /** The smoke checks' own USD ceiling, shared by all checks (separate from any run's ceiling). */
  readonly ceilingUsd: number;
  /** `smoke.jsonl` to append the results to (excluded data), each as soon as its check ends. */
  readonly logPath?: string;
  /**
   * A file ledger for the smoke checks (a run's `smoke-ledger.jsonl`): its ceiling then holds
   * across sessions, and a check whose request it shows as reserved is never sent again (paid),
   * even when its result was lost (a kill, a deleted `smoke.jsonl`). A memory ledger otherwise.
   */
  readonly ledgerPath?: string;
  /** A catalog already fetched; fetched here per OpenRouter model otherwise. */
  readonly catalog?: ModelCatalog;
  readonly deadlineMs?: number;
  readonly prompts?: PromptSet;
  readonly fetch?: typeof globalThis.fetch;
  readonly now?: () => Date;
}

/**
 * Sends one small request per live system through the real transport, with its own tiny ceiling,
 * and checks that the provider allowlist resolves in the catalog, the price is known, the reply
 * parses (and came from an allowlisted provider). Results are appended to `smoke.jsonl` marked as
 * excluded: smoke requests never appear in scored blocks.
 */
export async function runSmokeChecks(options: SmokeOptions): Promise<SmokeResult[]> {
  const now = options.now ?? (() => new Date());
  const ledger: InspectableLedger & { close?: () => Promise<void> } =
    options.ledgerPath === undefined
      ? createMemoryLedger({ ceilingUsd: options.ceilingUsd, now })
      : await createFileLedger({
          path: options.ledgerPath,
          // an existing smoke ledger keeps the ceiling it was created with
          ...(existsSync(options.ledgerPath) ? {} : { ceilingUsd: options.ceilingUsd }),
          repairTornTail: true,
          now,
        });
  const writer =
    options.logPath === undefined
      ? null
      : await createJsonlWriter({
          path: options.logPath,
          schema: SmokeResultSchema,
          fsync: 'every-line',
        });
  try {
    return await checkEach(options, ledger, now, writer);
  } finally {
    await writer?.close();
    await ledger.close?.();
  }
}

async function checkEach(
  options: SmokeOptions,
  ledger: InspectableLedger,
  now: () => Date,
  writer: JsonlWriter<SmokeResult> | null,
): Promise<SmokeResult[]> {
  const prompts = options.prompts ?? loadPromptTemplates();
  const results: SmokeResult[] = [];
  const sentBefore = new Set(
    (await ledger.entries()).flatMap((entry) =>
      entry.kind === 'reserve' ? [entry.attemptId.slice(0, entry.attemptId.lastIndexOf('#'))] : [],
    ),
  );
  for (const system of options.systems) {
    if (system.kind === 'scripted') continue;
    if (sentBefore.has(`smoke.${system.id}`)) {
      // Paid and its result lost (a kill, or smoke.jsonl deleted): never sent again.
      const lost = SmokeResultSchema.parse({
        kind: 'smoke-result',
        systemId: system.id,
        model: system.model,
        at: now().toISOString(),
        passed: false,
        checks: { allowlistResolved: null, priceKnown: null, replyParsed: false },
        detail:
          'the smoke request was sent in an earlier session and its result was lost; not sent again (paid): pass --allow-failed-smoke to start anyway',
        ceilingUsd: options.ceilingUsd,
        result: null,
        evidence: 'excluded',
      });
      results.push(lost);
      await writer?.append(lost);
      continue;
    }
    const apiKey = apiKeyForSystem(system, options);
    let allowlistResolved: boolean | null = null;
    let priceKnown: boolean | null = null;
    const problems: string[] = [];
    let catalog = options.catalog;
    if (system.kind === 'openrouter') {
      try {
        catalog ??= await fetchCatalog({
          models: [
            {
              model: system.model,
              providers: system.providers,
              maxOutputTokens: system.maxOutputTokens,
            },
          ],
          ...(apiKey === undefined ? {} : { apiKey }),
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
          ...(system.baseUrl === null ? {} : { baseURL: system.baseUrl }),
        });
        const entry = catalogEntry(catalog, system.model);
        allowlistResolved = true;
        priceKnown =
          Number.isFinite(entry.price.inputUsdPerToken) &&
          Number.isFinite(entry.price.outputUsdPerToken);
      } catch (error) {
        allowlistResolved = false;
        priceKnown = false;
        problems.push(
          CatalogError.isInstance(error) ? error.problems.join('; ') : (error as Error).message,
        );
        catalog = undefined;
      }
    }
    let model: ChatModel | null = null;
    try {
      model = createOpenRouterModel({
        model: system.model,
        mode: system.kind === 'openrouter' ? 'openrouter' : 'openai-compatible',
        ...(system.baseUrl === null ? {} : { baseURL: system.baseUrl }),
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(system.kind === 'openrouter' ? { providers: system.providers } : {}),
        // An endpoint without a declared price cannot be bounded: its one smoke request runs
        // without a reservation (its reported cost is still recorded in the result).
        ...(system.kind === 'openai-compatible' && system.safetyPrice === null ? {} : { ledger }),
        ...(catalog === undefined || system.kind !== 'openrouter'
          ? {}
          : { catalog: catalogEntry(catalog, system.model) }),
        ...(system.safetyPrice === null ? {} : { safetyPrice: system.safetyPrice }),
        maxOutputTokens: system.maxOutputTokens,
        evidenceClass: system.evidenceClass,
        ...(system.reasoningEffort === null
          ? {}
          : { reasoningEffort: system.reasoningEffort as ReasoningEffort }),
        ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        now,
      });
    } catch (error) {
      problems.push((error as Error).message);
    }
    let result = null;
    let replyParsed = false;
    if (model !== null && (system.kind !== 'openrouter' || allowlistResolved === true)) {
      const rendered = renderSmoke(prompts, { nonce: '0000000000000000' });
      result = await model.generate({
        requestId: `smoke.${system.id}`,
        messages: rendered.messages,
        maxOutputTokens: system.maxOutputTokens,
      });
      if (result.failure !== 'none')
        problems.push(`${result.failure}: ${result.failureDetail ?? ''}`);
      const parsed = parseProbeReply(result.text ?? '', ['smoke-1']);
      replyParsed = parsed.foundAnswerSet && parsed.answers[0]?.status === 'answered';
      if (!replyParsed)
        problems.push(
          `reply did not parse as an answer set (${parsed.notes.join('; ') || parsed.answers[0]?.detail || 'no detail'})`,
        );
      const provider = result.returnedProvider;
      if (
        system.kind === 'openrouter' &&
        provider !== null &&
        !system.providers.some((slug) => matchesProviderSlug(slug, provider))
      ) {
        problems.push(
          `answered by provider ${provider}, outside the allowlist [${system.providers.join(', ')}]`,
        );
        replyParsed = false;
      }
    }
    const passed =
      problems.length === 0 && allowlistResolved !== false && priceKnown !== false && replyParsed;
    const checked = SmokeResultSchema.parse({
      kind: 'smoke-result',
      systemId: system.id,
      model: system.model,
      at: now().toISOString(),
      passed,
      checks: { allowlistResolved, priceKnown, replyParsed },
      detail: passed ? 'ok' : problems.join('; '),
      ceilingUsd: options.ceilingUsd,
      result,
      evidence: 'excluded',
    });
    results.push(checked);
    await writer?.append(checked);
  }
  return results;
}

/** The latest smoke result of each system recorded in a `smoke.jsonl`, if any. */
export async function latestSmokeResults(path: string): Promise<Map<string, SmokeResult>> {
  const latest = new Map<string, SmokeResult>();
  const { records } = await readRunJsonl(path, SmokeResultSchema);
  for (const record of records) latest.set(record.systemId, record);
  return latest;
}
