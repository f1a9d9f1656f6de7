import { renderMemoryProbe } from '@chi/experiments/internal';
import { requestInputBytes, reservationUsd } from '@chi/openrouter';
import type { ModelCatalog } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import {
  defaultOfflineSettings,
  openAiCompatibleSystemSpec,
  openRouterSystemSpec,
} from '../settings';
import { formatPlanCost, planCost, worstCaseNotes } from './plan-cost';

const settings = defaultOfflineSettings({
  systems: [
    scriptedSystemSpec('perfect'),
    openRouterSystemSpec({
      id: 'kimi-k3',
      model: 'moonshotai/kimi-k3',
      providers: ['moonshotai/mxfp4'],
    }),
  ],
  replicates: 1,
  loads: [32],
  history: false,
  behavior: false,
  controlsAtLoad: null,
});
const prepared = prepareRun({ settings, now: () => new Date('2026-09-01T00:00:00.000Z') });

describe('planCost', () => {
  it('counts requests per system and prices only live ones, with worst-case notes', () => {
    const cost = planCost(prepared);
    expect(cost.systems.map((row) => [row.systemId, row.requests, row.priceSource])).toEqual([
      ['perfect', 2, 'free (scripted)'],
      ['kimi-k3', 2, 'safety price'],
    ]);
    expect(cost.systems[0]?.worstCaseUsd).toBe(0);
    // the probe's bound uses the worst-escaping notes at the cap
    const probe = prepared.plan.requests.find(
      (request) =>
        request.requestId ===
        'kimi-k3.memory.w' + prepared.frozen.manifest.worldSeeds[0] + '.n32.probe.b0',
    );
    const world = [...prepared.worlds.memory.values()][0];
    const messages = renderMemoryProbe(prepared.prompts, {
      notes: worstCaseNotes(6000),
      probes: world?.probes ?? [],
      nonce: probe?.nonce ?? '',
    }).messages;
    expect(requestInputBytes(messages)).toBeGreaterThan(6 * 6000);
    const probeUsd = reservationUsd({
      inputBytes: requestInputBytes(messages),
      maxOutputTokens: 4096,
      safetyPrice: settings.systems[1]?.safetyPrice ?? null,
      marginRatio: 0.25,
    });
    expect(cost.systems[1]?.worstCaseUsd).toBeGreaterThan(probeUsd);
    expect(cost.systems[1]?.worstCaseWithRetriesUsd).toBeCloseTo(
      3 * (cost.systems[1]?.worstCaseUsd ?? 0),
      5,
    );
  });

  it('uses the larger catalog price when it is higher', () => {
    const catalog: ModelCatalog = {
      kind: 'model-catalog',
      schemaVersion: 1,
      source: 'test',
      fetchedAt: '2026-09-01T00:00:00.000Z',
      models: [
        {
          model: 'moonshotai/kimi-k3',
          providers: ['moonshotai/mxfp4'],
          maxOutputTokens: 4096,
          price: { inputUsdPerToken: 1e-4, outputUsdPerToken: 1e-3, requestUsd: 0 },
          endpoints: [],
        },
      ],
    };
    const cheap = planCost(prepared);
    const dear = planCost(prepared, catalog);
    expect(dear.systems[1]?.priceSource).toBe('catalog and safety price (larger)');
    expect(dear.worstCaseUsd).toBeGreaterThan(10 * cheap.worstCaseUsd);
    expect(formatPlanCost(dear, 5)).toContain('kimi-k3');
  });

  it('says when no ceiling was given instead of printing a ceiling of 0 USD', () => {
    const none = formatPlanCost(planCost(prepared), null);
    expect(none).not.toContain('Ceiling given');
    expect(none).toContain('No ceiling given: a live run needs --ceiling-usd X');
    expect(formatPlanCost(planCost(prepared), 0)).toContain('Ceiling given: 0 USD.');
  });

  it('prints an unpriced model and the total as unbounded, never 0 USD', () => {
    const unpriced = prepareRun({
      settings: defaultOfflineSettings({
        systems: [
          scriptedSystemSpec('perfect'),
          openAiCompatibleSystemSpec({
            id: 'local',
            model: 'local-model',
            baseUrl: 'http://127.0.0.1:1/v1',
            safetyPrice: null,
          }),
        ],
        replicates: 1,
        loads: [32],
        history: false,
        behavior: false,
        controlsAtLoad: null,
      }),
      now: () => new Date('2026-09-01T00:00:00.000Z'),
    });
    const cost = planCost(unpriced);
    expect(cost.systems[1]?.priceSource).toBe('no price declared (the ceiling cannot bound it)');
    const lines = formatPlanCost(cost, 1).split('\n');
    const row = lines.find((line) => line.startsWith('local '));
    const total = lines.find((line) => line.startsWith('total '));
    expect(row).toMatch(/unbounded\s+unbounded$/);
    expect(total).toMatch(/unbounded\s+unbounded$/);
    expect(lines.find((line) => line.startsWith('perfect '))).toMatch(/0\.0000\s+0\.0000$/);
    expect(formatPlanCost(cost, 1)).not.toMatch(/local .* 0\.0000/);
  });
});
