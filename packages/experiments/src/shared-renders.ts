import type { PromptSet, RenderedMessages } from '@chi/experiment';

/** How many shared renders are kept per world (the systems of a block ask for them in a row). */
const KEPT_PER_WORLD = 4;

const renders = new WeakMap<PromptSet, WeakMap<object, Map<string, RenderedMessages>>>();

/**
 * The messages of a request that no system's state enters (a memory encode, an oracle probe, a
 * blank-notes probe): every system of a block is sent the same text, so it is rendered once and
 * the others get the same frozen object. `key` must name every input of `render` besides
 * `prompts` and `world` (template, nonce, probe batch, caps). Kept per prompt set and world
 * object, at most {@link KEPT_PER_WORLD} per world, and dropped with the world: memory stays
 * bounded by the worlds a session holds.
 */
export function sharedRender(
  prompts: PromptSet,
  world: object,
  key: string,
  render: () => RenderedMessages,
): RenderedMessages {
  let byWorld = renders.get(prompts);
  if (byWorld === undefined) {
    byWorld = new WeakMap();
    renders.set(prompts, byWorld);
  }
  let kept = byWorld.get(world);
  if (kept === undefined) {
    kept = new Map();
    byWorld.set(world, kept);
  }
  const found = kept.get(key);
  if (found !== undefined) return found;
  const rendered = render();
  for (const message of rendered.messages) Object.freeze(message);
  Object.freeze(rendered.messages);
  kept.set(key, Object.freeze(rendered));
  if (kept.size > KEPT_PER_WORLD) kept.delete(kept.keys().next().value as string);
  return rendered;
}
