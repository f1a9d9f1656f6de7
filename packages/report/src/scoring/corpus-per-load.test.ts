import type { RunPlan } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import type { RunRecords } from '../run-folder/run-folder';
import { corpusPerLoad } from './corpus-per-load';

// Hand-worked: two loads; at load 32 two systems' encode requests of 1000 and 1200 bytes (one
// retried: its latest attempt counts once), one reporting 260 prompt tokens; at load 64 one
// request of 2000 bytes without usage. A probe request is not a corpus.
const request = (requestId: string, task: string, load: number) => ({
  requestId,
  systemId: requestId.slice(0, 1),
  task,
  load,
});
const attempt = (
  requestId: string,
  inputBytes: number,
  phase: 'before_send' | 'after_response',
  promptTokens: number | null = null,
) => ({
  requestId,
  inputBytes,
  phase,
  result: phase === 'after_response' ? { usage: { promptTokens } } : null,
});

describe('corpus per load (issue 31: the report states corpus bytes and tokens per load)', () => {
  it('counts each encode request once per load, with reported tokens where there are any', () => {
    const records = {
      plan: {
        requests: [
          request('a32', 'memory_encode', 32),
          request('b32', 'memory_encode', 32),
          request('a64', 'memory_encode', 64),
          request('p32', 'memory_probe', 32),
        ],
      } as unknown as RunPlan,
      attempts: [
        attempt('a32', 1000, 'before_send'),
        attempt('a32', 1000, 'after_response', 260),
        attempt('b32', 1200, 'before_send'),
        attempt('b32', 1200, 'before_send'),
        attempt('b32', 1200, 'after_response', null),
        attempt('a64', 2000, 'before_send'),
        attempt('p32', 5000, 'before_send'),
      ],
    } as unknown as Pick<RunRecords, 'attempts' | 'plan'>;
    expect(corpusPerLoad(records)).toEqual([
      {
        load: 32,
        requests: 2,
        bytesMin: 1000,
        bytesMean: 1100,
        bytesMax: 1200,
        reportedPromptTokensMean: 260,
        requestsWithTokens: 1,
      },
      {
        load: 64,
        requests: 1,
        bytesMin: 2000,
        bytesMean: 2000,
        bytesMax: 2000,
        reportedPromptTokensMean: null,
        requestsWithTokens: 0,
      },
    ]);
  });
});
