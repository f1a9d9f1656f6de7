import { z } from 'zod';
import { BehavioralItemSetSchema } from './behavior';
import { BehaviorScoreSchema } from './behavior-scores';
import { LedgerEntrySchema, LedgerStateSchema } from './budget';
import { HumanDataHeaderSchema, HumanDataRowSchema } from './calibration';
import { ModelCatalogSchema } from './catalog';
import { ChatResultSchema } from './chat-model';
import { AxisProfileSchema, ChiResultSchema, HumanCalibrationSchema } from './chi';
import { ChisEntrySchema } from './chis';
import { DivergenceManifestSchema } from './divergence';
import { HistoryWorldSchema } from './history';
import { HistoryScoreSchema } from './history-scores';
import {
  BlindMemoryWorldSchema,
  MemoryRecordSchema,
  MemoryWorldSchema,
  ProbeAnswerSchema,
} from './memory';
import { PilotConfigSchema } from './pilot-config';
import {
  AttemptRecordSchema,
  BlockStatusSchema,
  FailureLogEntrySchema,
  NotebookSnapshotSchema,
  RenderedRequestSchema,
  RequestIndexEntrySchema,
  RunManifestSchema,
  RunPlanSchema,
  RunStatusSchema,
  SmokeResultSchema,
} from './run';
import {
  CapacityCurveSchema,
  EimcResultSchema,
  MemoryScoreSchema,
  ParsedProbeReplySchema,
} from './scores';
import { StudyFileSchema } from './study';
import { ParsedTaskReplySchema } from './task-replies';
import {
  BehaviorItemTraceSchema,
  FailureTaxonomySchema,
  HistoryItemTraceSchema,
  MemoryProbeTraceSchema,
} from './traces';
import { WithinWorldQualityCurveSchema } from './within-world-curve';

/**
 * The schemas published as JSON Schema files under `packages/spec/schemas/`, so tools in other
 * languages can validate our data. File name = key + `.schema.json`.
 */
export const JSON_SCHEMA_REGISTRY = {
  'memory-record': MemoryRecordSchema,
  'memory-world': MemoryWorldSchema,
  'blind-memory-world': BlindMemoryWorldSchema,
  'probe-answer': ProbeAnswerSchema,
  'parsed-probe-reply': ParsedProbeReplySchema,
  'memory-score': MemoryScoreSchema,
  'capacity-curve': CapacityCurveSchema,
  'eimc-result': EimcResultSchema,
  'history-world': HistoryWorldSchema,
  'behavioral-items': BehavioralItemSetSchema,
  'axis-profile': AxisProfileSchema,
  'human-calibration': HumanCalibrationSchema,
  'chi-result': ChiResultSchema,
  'human-data-header': HumanDataHeaderSchema,
  'human-data-row': HumanDataRowSchema,
  'chis-entry': ChisEntrySchema,
  'chat-result': ChatResultSchema,
  'ledger-entry': LedgerEntrySchema,
  'ledger-state': LedgerStateSchema,
  'model-catalog': ModelCatalogSchema,
  'run-manifest': RunManifestSchema,
  'divergence-manifest': DivergenceManifestSchema,
  'attempt-record': AttemptRecordSchema,
  'run-plan': RunPlanSchema,
  'rendered-request': RenderedRequestSchema,
  'request-index-entry': RequestIndexEntrySchema,
  'notebook-snapshot': NotebookSnapshotSchema,
  'failure-log-entry': FailureLogEntrySchema,
  'block-status': BlockStatusSchema,
  'run-status': RunStatusSchema,
  'smoke-result': SmokeResultSchema,
  'parsed-task-reply': ParsedTaskReplySchema,
  'within-world-curve': WithinWorldQualityCurveSchema,
  'history-score': HistoryScoreSchema,
  'behavior-score': BehaviorScoreSchema,
  'memory-probe-trace': MemoryProbeTraceSchema,
  'failure-taxonomy': FailureTaxonomySchema,
  'history-item-trace': HistoryItemTraceSchema,
  'behavior-item-trace': BehaviorItemTraceSchema,
  'pilot-config': PilotConfigSchema,
  study: StudyFileSchema,
} as const;

/**
 * JSON Schema (draft 2020-12) text of every registered schema, keyed by file name, serialized
 * with two-space indentation and a trailing newline (the committed files are exactly these).
 */
export function jsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(JSON_SCHEMA_REGISTRY)) {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
      io: 'input',
    });
    out[`${name}.schema.json`] =
      `${JSON.stringify({ $id: `https://chi-toolkit.dev/schemas/${name}.schema.json`, ...json }, null, 2)}\n`;
  }
  return out;
}
