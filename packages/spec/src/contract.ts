import { type ChatModel, type ChatRequest, type ChatResult, ChatResultSchema } from './chat-model';
import { EvidenceClassSchema } from './primitives';
import { formatIssues } from './validate';

/** What a {@link checkChatResult} call compares the result against. */
export interface ChatResultExpectations {
  /** The model that produced the result. */
  readonly model: Pick<ChatModel, 'modelId' | 'evidenceClass'>;
  /** The request it answered. */
  readonly request: Pick<ChatRequest, 'requestId'>;
}

function findHiddenReasoning(value: unknown, path: string, found: string[]): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries())
      findHiddenReasoning(item, `${path}[${index}]`, found);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    // Token counts such as `reasoning_tokens` are usage, not hidden text: only numbers may stay.
    if (/reasoning|thinking/i.test(key) && typeof child !== 'number') found.push(childPath);
    else findHiddenReasoning(child, childPath, found);
  }
}

/**
 * Checks one {@link ChatResult} against the `ChatModel` contract and returns every problem as a
 * sentence (an empty list means the result is conforming). Pure: no I/O, no clock.
 *
 * The rules: the result matches `ChatResultSchema`; it echoes the request ID, the model ID and
 * the model's evidence class; a result without failure has non-empty text; a `truncated` failure
 * sets `truncated`; it does not finish before it starts; tries are numbered 0, 1, 2… and only a
 * try that is followed by another one has a wait, with its source; the redacted response holds no
 * hidden reasoning (any key containing `reasoning` or `thinking` whose value is not a number).
 *
 * @example
 * ```ts
 * const problems = checkChatResult(result, { model, request });
 * if (problems.length > 0) throw new Error(problems.join('\n'));
 * ```
 */
export function checkChatResult(result: unknown, expected: ChatResultExpectations): string[] {
  const parsed = ChatResultSchema.safeParse(result);
  if (!parsed.success) {
    return formatIssues(parsed.error.issues).map(
      (issue) =>
        `result does not match ChatResultSchema at ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`,
    );
  }
  const value: ChatResult = parsed.data;
  const problems: string[] = [];
  if (value.requestId !== expected.request.requestId) {
    problems.push(
      `requestId is ${JSON.stringify(value.requestId)}, expected ${JSON.stringify(expected.request.requestId)}`,
    );
  }
  if (value.requestedModel !== expected.model.modelId) {
    problems.push(
      `requestedModel is ${JSON.stringify(value.requestedModel)}, expected the model's modelId ${JSON.stringify(expected.model.modelId)}`,
    );
  }
  if (value.evidenceClass !== expected.model.evidenceClass) {
    problems.push(
      `evidenceClass is ${value.evidenceClass}, expected the model's ${expected.model.evidenceClass}`,
    );
  }
  if (value.failure === 'none' && (value.text === null || value.text === '')) {
    problems.push(
      'failure is none but text is empty: an answer without text must be an empty_response failure',
    );
  }
  if (value.failure === 'truncated' && !value.truncated) {
    problems.push('failure is truncated but the truncated flag is false');
  }
  if (Date.parse(value.finishedAt) < Date.parse(value.startedAt)) {
    problems.push(`finishedAt ${value.finishedAt} is before startedAt ${value.startedAt}`);
  }
  value.tries.forEach((tryRecord, index) => {
    if (tryRecord.tryIndex !== index)
      problems.push(`tries[${index}].tryIndex is ${tryRecord.tryIndex}, expected ${index}`);
    if ((tryRecord.waitMs === null) !== (tryRecord.waitSource === null)) {
      problems.push(
        `tries[${index}] has waitMs ${tryRecord.waitMs} but waitSource ${tryRecord.waitSource}: both or neither`,
      );
    }
    const isLast = index === value.tries.length - 1;
    if (isLast && tryRecord.waitMs !== null)
      problems.push(`tries[${index}] is the last try but logs a wait before a next try`);
    if (!isLast && tryRecord.waitMs === null)
      problems.push(`tries[${index}] is followed by another try but logs no wait`);
  });
  const hidden: string[] = [];
  findHiddenReasoning(value.redactedResponse, '', hidden);
  for (const path of hidden) problems.push(`redactedResponse keeps hidden reasoning at ${path}`);
  return problems;
}

/** Options of {@link checkChatModelContract}. */
export interface ChatModelContractOptions {
  /** A request the model answers normally; defaults to one user message asking for `OK`. */
  readonly request?: Omit<ChatRequest, 'requestId' | 'signal'>;
  /**
   * When true (the default), the normal request must succeed (`failure: 'none'`). Set it to false
   * for a model under fault injection, whose failures are then checked for shape only.
   */
  readonly expectSuccess?: boolean;
}

async function settle<T>(
  promise: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise() };
  } catch (error) {
    return { ok: false, error };
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Runs the `ChatModel` contract against any implementation (OpenRouter, an OpenAI-compatible
 * server, a scripted reference system) and returns every problem found, so it works under any
 * test framework: `expect(await checkChatModelContract(model)).toEqual([])`.
 *
 * It sends three requests: a normal one (checked with {@link checkChatResult}, and required to
 * succeed unless `expectSuccess` is false), one whose `signal` is already aborted (must resolve,
 * not reject, with a failure set: a cancelled request is a recorded failure), and one with no
 * messages (must reject: an invalid request is a programming error). It also checks the static
 * fields (`specificationVersion`, `provider`, `modelId`, `evidenceClass`).
 *
 * @example
 * ```ts
 * it('meets the ChatModel contract', async () => {
 *   expect(await checkChatModelContract(createScriptedModel({ seed: 1 }))).toEqual([]);
 * });
 * ```
 */
export async function checkChatModelContract(
  model: ChatModel,
  options: ChatModelContractOptions = {},
): Promise<string[]> {
  const problems: string[] = [];
  if (model.specificationVersion !== 'chi-chat-v1') {
    problems.push(
      `specificationVersion is ${JSON.stringify(model.specificationVersion)}, expected "chi-chat-v1"`,
    );
  }
  if (typeof model.provider !== 'string' || model.provider === '')
    problems.push('provider must be a non-empty string');
  if (typeof model.modelId !== 'string' || model.modelId === '')
    problems.push('modelId must be a non-empty string');
  if (!EvidenceClassSchema.safeParse(model.evidenceClass).success) {
    problems.push(
      `evidenceClass ${JSON.stringify(model.evidenceClass)} is not one of ${EvidenceClassSchema.options.join(', ')}`,
    );
  }

  const base = options.request ?? {
    messages: [{ role: 'user' as const, content: 'Reply with OK.' }],
  };

  const normal: ChatRequest = { ...base, requestId: 'contract-normal' };
  const normalOutcome = await settle(() => model.generate(normal));
  if (!normalOutcome.ok) {
    problems.push(
      `generate rejected a valid request (it must resolve with failure set): ${describeError(normalOutcome.error)}`,
    );
  } else {
    for (const problem of checkChatResult(normalOutcome.value, { model, request: normal }))
      problems.push(`normal request: ${problem}`);
    if ((options.expectSuccess ?? true) && normalOutcome.value.failure !== 'none') {
      problems.push(
        `normal request failed with ${normalOutcome.value.failure}: ${normalOutcome.value.failureDetail ?? ''}`,
      );
    }
  }

  const controller = new AbortController();
  controller.abort(new Error('cancelled by the contract check'));
  const aborted: ChatRequest = {
    ...base,
    requestId: 'contract-aborted',
    signal: controller.signal,
  };
  const abortedOutcome = await settle(() => model.generate(aborted));
  if (!abortedOutcome.ok) {
    problems.push(
      `generate rejected a cancelled request (it must resolve with failure set): ${describeError(abortedOutcome.error)}`,
    );
  } else {
    for (const problem of checkChatResult(abortedOutcome.value, { model, request: aborted }))
      problems.push(`cancelled request: ${problem}`);
    if (abortedOutcome.value.failure === 'none')
      problems.push('a request whose signal was already aborted resolved without failure');
  }

  const invalid: ChatRequest = { requestId: 'contract-invalid', messages: [] };
  const invalidOutcome = await settle(() => model.generate(invalid));
  if (invalidOutcome.ok)
    problems.push('generate resolved a request with no messages; an invalid request must reject');

  return problems;
}
