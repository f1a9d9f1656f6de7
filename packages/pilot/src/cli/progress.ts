import type { PilotEvent, PilotProgress } from '../events';

/** Where progress goes: a stream-like writer and whether it is an interactive terminal. */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

function usd(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}

/** One progress line: requests done / total, spend vs ceiling (when there is either), failures. */
export function formatProgress(progress: PilotProgress, elapsedMs: number): string {
  const percent = progress.total === 0 ? 100 : Math.floor((100 * progress.done) / progress.total);
  const parts = [`${progress.done}/${progress.total} requests (${percent}%)`];
  // A run without a ceiling and without spend (offline, or a free local endpoint) has no money
  // to show: "$0.0000 of $0.0000 ceiling" would only be noise.
  if (progress.ceilingUsd > 0 || progress.committedUsd > 0)
    parts.push(`${usd(progress.committedUsd)} of ${usd(progress.ceilingUsd)} ceiling`);
  parts.push(`${progress.failures} failure${progress.failures === 1 ? '' : 's'}`);
  if (progress.notSent > 0) parts.push(`${progress.notSent} not sent`);
  parts.push(`${(elapsedMs / 1000).toFixed(1)} s`);
  return parts.join(' · ');
}

/**
 * Renders pilot events for a human: on a TTY one line rewritten in place (at most every 100 ms);
 * otherwise plain lines at every 10 % and at every notable event, so logs stay readable.
 */
export function createProgressRenderer(
  output: ProgressOutput,
  clock: () => number = Date.now,
): (event: PilotEvent) => void {
  const started = clock();
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastDecile = -1;
  let liveLine = false;
  const endLiveLine = () => {
    if (liveLine) output.write('\n');
    liveLine = false;
  };
  const line = (text: string) => {
    endLiveLine();
    output.write(`${text}\n`);
  };
  return (event) => {
    switch (event.type) {
      case 'run-created':
        line(
          `chi: run ${event.runId}: ${event.totalRequests} registered requests; manifest sha256 ${event.manifestSha256}`,
        );
        line(`chi: run folder ${event.runDir}`);
        break;
      case 'run-resumed':
        line(
          `chi: resuming ${event.runId}: ${event.resolved} requests already resolved, ${event.abandoned} possibly-sent paid request(s) abandoned, ${event.resent} scripted request(s) sent again`,
        );
        break;
      case 'request-abandoned':
        line(`chi: ${event.requestId} was possibly sent before the interruption`);
        break;
      case 'request-finished': {
        const now = clock();
        if (output.isTTY === true) {
          if (now - lastDraw >= 100 || event.progress.done === event.progress.total) {
            output.write(`\r\u001b[2K${formatProgress(event.progress, now - started)}`);
            liveLine = true;
            lastDraw = now;
          }
        } else {
          const decile =
            event.progress.total === 0
              ? 10
              : Math.floor((10 * event.progress.done) / event.progress.total);
          if (decile !== lastDecile) {
            lastDecile = decile;
            line(formatProgress(event.progress, now - started));
          }
        }
        if (event.failure !== 'none' && output.isTTY !== true)
          line(`chi: ${event.requestId}: ${event.failure}`);
        break;
      }
      case 'budget-stop':
        line(`chi: STOP (${event.kind}): ${event.message}; no new requests are sent`);
        break;
      case 'run-finished':
        line(`chi: ${event.state}: ${formatProgress(event.progress, clock() - started)}`);
        break;
      case 'scored':
        line(
          `chi: scored: ${event.completeBlocks} complete block(s), ${event.incompleteBlocks} incomplete`,
        );
        break;
      case 'finishing':
        line(`chi: ${event.detail} (${((clock() - started) / 1000).toFixed(1)} s)`);
        break;
      case 'release-written':
        line(`chi: release written to ${event.releaseDir}`);
        break;
      case 'note':
        line(`chi: ${event.message}`);
        break;
    }
  };
}
