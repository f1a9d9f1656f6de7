import {
  type PromptSet,
  type RenderedMessages,
  renderJsonBlock,
  requireTemplate,
} from '@chi/experiment';
import type { BehavioralItem } from '@chi/spec';
import { renderRequest, requestHeader } from '../rendering';
import { behaviorQuestionSections, itemView } from './questions';

/** One fresh-context behavioral half: its items (wording and facts), nothing else. */
export function renderBehaviorHalf(
  prompts: PromptSet,
  args: {
    items: readonly BehavioralItem[];
    nonce: string;
    /** The questions' wording template (default `behavior-questions`, the first wording). */
    wording?: string;
  },
): RenderedMessages {
  const sections = behaviorQuestionSections(
    requireTemplate(prompts, args.wording ?? 'behavior-questions'),
  );
  const ordered = [...args.items].sort((a, b) => a.position - b.position);
  return renderRequest(prompts, 'behavior_half', 'behavior-half', {
    REQUEST_BLOCK: requestHeader({ task: 'behavior_half', nonce: args.nonce }),
    ITEMS_BLOCK: renderJsonBlock(
      'ITEMS',
      ordered.map((item) => itemView(sections, item)),
    ),
  });
}
