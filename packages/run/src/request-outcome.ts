import type { ChatResult } from '@chi/spec';

/** Where one registered request ended up. */
export type RequestOutcome =
  | { readonly kind: 'resolved'; readonly result: ChatResult }
  /** Possibly sent before a crash, outcome unknown, never re-sent (paid systems). */
  | { readonly kind: 'abandoned'; readonly reason: string }
  /** Not sent because a request it needs did not produce a notebook. */
  | { readonly kind: 'blocked'; readonly by: string }
  /** Not sent because the run stopped (budget, interruption, error) or never reached it. */
  | { readonly kind: 'not_sent'; readonly reason: string }
  /** Not reached yet. */
  | { readonly kind: 'pending' };

/** The reply a request can be scored from, or why there is none. */
export type UsableReply =
  | { readonly kind: 'reply'; readonly text: string }
  | { readonly kind: 'unusable'; readonly reason: string };

/**
 * The one reading of a request's outcome that every scorer uses (the release's scores and traces,
 * the CHIS log, `chi verify`): only a resolved request with failure `none` and a text has a reply.
 * Any failure, model or infrastructure, gives no reply: the scorer counts every ID it asked about
 * as missing, and never parses a truncated, timed-out or misrouted text.
 *
 * @example
 * ```ts
 * usableReply({ kind: 'resolved', result }); // { kind: 'reply', text: result.text } when result.failure is 'none'
 * usableReply(undefined); // { kind: 'unusable', reason: 'not sent' }
 * ```
 */
export function usableReply(outcome: RequestOutcome | undefined): UsableReply {
  if (outcome === undefined) return { kind: 'unusable', reason: 'not sent' };
  switch (outcome.kind) {
    case 'resolved': {
      const { result } = outcome;
      if (result.failure !== 'none')
        return {
          kind: 'unusable',
          reason: `failure ${result.failure}${result.failureDetail === null ? '' : `: ${result.failureDetail}`}`,
        };
      // read once: a reader may fetch the text from disk on each access (the report's attempt log)
      const { text } = result;
      if (text === null) return { kind: 'unusable', reason: 'no text' };
      return { kind: 'reply', text };
    }
    case 'abandoned':
      return { kind: 'unusable', reason: `abandoned: ${outcome.reason}` };
    case 'blocked':
      return { kind: 'unusable', reason: `not sent: blocked by ${outcome.by}` };
    case 'not_sent':
      return { kind: 'unusable', reason: 'not sent' };
    case 'pending':
      return { kind: 'unusable', reason: 'not sent' };
  }
}
