import type { RenderedMessages } from '@chi/experiment';
import { renderJsonBlock } from '@chi/experiment';
import { requestHeader as header, renderRequest as render } from '@chi/experiments/internal';
import type { PromptSet } from '../prompts';

// The experiment SPI's type (`@chi/experiment`), re-exported: `@chi/pilot` has always exported it.
export type { RenderedMessages } from '@chi/experiment';

/** The smoke request: one trivial question whose answer is in the prompt. Never scored. */
export function renderSmoke(prompts: PromptSet, args: { nonce: string }): RenderedMessages {
  return render(prompts, 'smoke', 'smoke', {
    REQUEST_BLOCK: header({ task: 'smoke', nonce: args.nonce }),
    QUESTIONS_BLOCK: renderJsonBlock('QUESTIONS', [
      { id: 'smoke-1', value: '0a1b2c3d', source: 'src-smoke' },
    ]),
  });
}
