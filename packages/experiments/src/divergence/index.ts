import type { DivergenceExperimentParams } from '@chi/spec/internal';
import { defineProtocolExperiment, type ProtocolExperiment } from '../built-in-experiment';
import { divergenceExperiment } from './experiment';
import type { DivergenceManifest } from './manifest';
import { divergenceScorer } from './scorer';

/**
 * The divergence protocol (issue 19; a protocol of its own, not a template of the default pilot):
 * the module (./experiment.ts: descriptor, planner over ./protocol.ts and ./plan.ts, renderer
 * ./render.ts with the history experiment's prompt templates and render helpers), its world
 * (./world.ts), its interval method (./interval-method.ts) and its scorer (./scorer.ts). Its
 * scripted reference systems, runner wiring, analysis, release, report, view and verify stay in
 * the pilot (docs/architecture.md, "The divergence protocol and the shared runner").
 */
export const divergence: ProtocolExperiment<DivergenceExperimentParams, DivergenceManifest> =
  defineProtocolExperiment({ experiment: divergenceExperiment, scorer: divergenceScorer });
