import { extractJsonBlock } from '@chi/experiment';
import { InvalidArgumentError } from '@chi/spec';
import type { ScriptedContext } from './built-in-experiment';

// What the scripted policies of the default run's experiments read from a prompt's JSON blocks.
// A prompt that is not ours throws a plain `Error` (the scripted system's reply is then an
// `invalid_response`, with the message as its detail).

/** A JSON block that must be an object, or an error naming it. */
export function scriptedObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what} block missing or not an object`);
  return value as Record<string, unknown>;
}

/** A JSON block that must be an array, or an error naming it. */
export function scriptedArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} block missing or not an array`);
  return value;
}

/** The notes of a prompt's NOTES block, or an error. */
export function scriptedNotes(prompt: string): string {
  const notes = scriptedObject(extractJsonBlock(prompt, 'NOTES'), 'NOTES').notes;
  if (typeof notes !== 'string') throw new Error('NOTES block has no notes string');
  return notes;
}

/**
 * The scripted system's policy for an experiment (its definition's entry under the experiment's
 * ID), or an `InvalidArgumentError` naming the system and the experiment.
 */
export function scriptedPolicy<Policy>(
  context: ScriptedContext<Policy>,
  experimentId: string,
): Policy {
  if (context.policy === undefined)
    throw new InvalidArgumentError(
      'system',
      `${experimentId} has no scripted policy for ${JSON.stringify(context.system)}`,
    );
  return context.policy;
}
