import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, sep } from 'node:path';
import type { PilotConfig } from '@chi/spec';
import {
  DEFAULT_LOADS,
  DEFAULT_OFFLINE_REPLICATES,
  DEFAULT_ROOT_SEED,
  DEFAULT_SCRIPTED_ROSTER,
} from '../settings';
import { UsageError } from './usage-error';

/** Where `@chi/spec` publishes the configuration's JSON Schema. */
export const PILOT_CONFIG_SCHEMA_SPECIFIER = '@chi/spec/schemas/pilot-config.schema.json';

/**
 * The `$schema` reference of a configuration file written at `configPath`: the installed
 * `@chi/spec` schema file, relative to the file's folder (editors resolve it offline).
 */
export function schemaReference(configPath: string): string {
  const schemaPath = createRequire(import.meta.url).resolve(PILOT_CONFIG_SCHEMA_SPECIFIER);
  const path = relative(dirname(configPath), schemaPath).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * The starter configuration `chi init` writes: every option of an offline run at its default,
 * `$schema` for completion and descriptions in editors, and `$comment` lines that explain the
 * file (JSON has no comments, so the file stays plain JSON that any tool reads).
 */
export function starterConfig(schema: string): PilotConfig {
  return {
    $schema: schema,
    $comment: [
      'chi pilot --config this-file: every option of a pilot run. Flags given on the command line win over this file.',
      'Offline (default): "systems" lists scripted reference systems; their results are scripted baselines, not measurements.',
      'Live: replace "systems" with "live": true (the four protocol models on OpenRouter) or "models": ["model@provider"], and set "ceilingUsd".',
      'An OpenAI-compatible endpoint: "baseUrl": "http://127.0.0.1:8000/v1" with "models": ["its-model-name"].',
      'The API key is read from OPENROUTER_API_KEY (or OPENAI_API_KEY for baseUrl) in the environment, never from this file.',
      '"out" (optional) is the run folder, relative to this file; by default ./chi-runs/<runId>.',
      'Hover a field in an editor that reads "$schema" for its meaning; the resolved options are frozen in the run manifest.',
    ],
    systems: [...DEFAULT_SCRIPTED_ROSTER],
    replicates: DEFAULT_OFFLINE_REPLICATES,
    loads: [...DEFAULT_LOADS],
    batchSize: null,
    controls: true,
    history: true,
    behavior: true,
    ceilingUsd: 0,
    smokeCeilingUsd: 1,
    allowFailedSmoke: false,
    concurrency: 8,
    seed: DEFAULT_ROOT_SEED,
    resamples: 2000,
    release: true,
  };
}

/** Writes the starter configuration to `path`; refuses to replace a file unless `force`. */
export function writeStarterConfig(path: string, force: boolean): void {
  if (existsSync(path) && !force)
    throw new UsageError(`chi init: ${path} already exists; pass --force to replace it`);
  writeFileSync(path, `${JSON.stringify(starterConfig(schemaReference(path)), null, 2)}\n`);
}
