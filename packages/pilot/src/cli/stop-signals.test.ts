import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { type Child, startNode } from '../../../../tooling/vitest/child-process';
import { captureIo } from '../__fixtures__/cli-io';
import { startDivergenceEndpoint } from '../__fixtures__/divergence-endpoint';
import { startHeldGateway } from '../__fixtures__/held-gateway';
import { testFolder } from '../__fixtures__/test-folder';
import { runCli } from './cli-main';

// Every protocol's `chi pilot` in a real child process, stopped by a real signal while one request
// is in flight by construction (the loopback endpoint holds it until the signal was handled), so
// nothing here depends on timing: one request in flight (--concurrency 1), the signal, the
// "stopping" line, then the held request answered.

/** `node`'s arguments that start `chi`: the run's bundle of its sources (`nodeArgsFor`). */
const CHI = await nodeArgsFor(fileURLToPath(new URL('../cli.ts', import.meta.url)));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

// the endpoints are scripted loopback servers: no credential of any kind is needed or sent
// (startNode leaves the provider keys out); cwd stays the package's, the run folder is absolute
const spawnCli = (args: readonly string[]): Child =>
  startNode([...CHI, ...args], { stdout: 'ignore' });

/** The `before_send` records of a run folder's attempt log. */
function beforeSends(runDir: string): number {
  const path = join(runDir, 'attempts.jsonl');
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"phase":"before_send"')).length;
}

/** What a signalled session did: exit, stderr, requests the endpoint received after the signal. */
interface Stopped {
  readonly exit: number | string;
  readonly stderr: string;
  readonly receivedAfterSignal: number;
  readonly beforeSendsAfterSignal: number;
}

/**
 * Runs `args` until the endpoint holds a scored request, sends the first signal and waits until
 * it was handled; then answers the held request, or sends the second signal (the request stays
 * held); and waits for the exit.
 */
async function stopWhileHeld(
  args: readonly string[],
  runDir: string,
  endpoint: { hold(): Promise<unknown>; received(): number; releaseHeld(): Promise<void> },
  signals: readonly [NodeJS.Signals] | readonly [NodeJS.Signals, NodeJS.Signals],
): Promise<Stopped> {
  const held = endpoint.hold();
  const child = spawnCli(args);
  expect(await child.firstOf(held), child.stderr()).toBe('event');
  const received = endpoint.received();
  const recorded = beforeSends(runDir);
  const [firstSignal, secondSignal] = signals;
  const handled = child.until('stderr', 'stopping: no new requests');
  child.process.kill(firstSignal);
  await handled;
  // A second signal must quit with the request still held; otherwise the held request settles.
  if (secondSignal === undefined) await endpoint.releaseHeld();
  else child.process.kill(secondSignal);
  const exit = await child.exit;
  return {
    exit,
    stderr: child.stderr(),
    receivedAfterSignal: endpoint.received() - received,
    beforeSendsAfterSignal: beforeSends(runDir) - recorded,
  };
}

/** The resume command printed after `Resume with:`, as argv (without the leading `chi`). */
function resumeArgs(stderr: string): string[] {
  const line = /Resume with:\n {2}chi (pilot --resume .+)\n/.exec(stderr)?.[1];
  expect(line, stderr).toBeDefined();
  return (line as string).split(' ');
}

async function defaultPilotEndpoint() {
  const gateway = await startHeldGateway(['latest-wins']);
  cleanups.push(() => gateway.close());
  return {
    gateway,
    endpoint: {
      hold: () => gateway.holdNth(5),
      received: () => gateway.scoredSinceArmed(),
      releaseHeld: () => gateway.releaseHeld(),
    },
  };
}

/**
 * Whether a test resumes its stopped run to the end. The folder a stop leaves (exit 3, the held
 * request answered, nothing sent after the signal) is the same whichever signal stopped it, and
 * every test checks that: one resume per protocol proves the printed command completes that
 * folder, and the others check the command is printed (about 9 s of a whole run each, saved:
 * docs/benchmarks/ci.md, "Fourth pass").
 */
const RESUMES: Readonly<Record<string, true>> = {
  'pilot SIGTERM': true,
  'divergence SIGINT': true,
};

/** The resume command a stop printed: run to the end when {@link RESUMES} names the case. */
async function resumeIfChosen(name: string, cwd: string, stderr: string): Promise<void> {
  const args = resumeArgs(stderr);
  expect(args.slice(0, 2)).toEqual(['pilot', '--resume']);
  if (RESUMES[name] !== true) return;
  const resumed = captureIo({ cwd });
  expect(await runCli(args, resumed.io), resumed.err()).toBe(0);
}

describe('the default pilot stops on the first SIGTERM or SIGHUP like on Ctrl-C', () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s: nothing sent after it, exit 3 with the resume command, and --resume completes the run (SIGTERM resumes it)',
    async (signal) => {
      const { gateway, endpoint } = await defaultPilotEndpoint();
      const cwd = testFolder('chi-stop-pilot-');
      const runDir = join(cwd, 'run');
      const args = [
        'pilot',
        '--base-url',
        gateway.baseUrl,
        '--models',
        gateway.models.join(','),
        '--ceiling-usd',
        '1',
        '--replicates',
        '1',
        '--loads',
        '32',
        '--resamples',
        '20',
        '--concurrency',
        '1',
        '--out',
        runDir,
      ];
      const stopped = await stopWhileHeld(args, runDir, endpoint, [signal]);
      expect(stopped.receivedAfterSignal).toBe(0);
      expect(stopped.beforeSendsAfterSignal).toBe(0);
      expect(stopped.exit, stopped.stderr).toBe(3);
      expect(stopped.stderr).toContain(`chi: ${signal}: stopping: no new requests`);
      await resumeIfChosen(`pilot ${signal}`, cwd, stopped.stderr);
    },
  );
});

async function divergenceEndpoint() {
  const server = await startDivergenceEndpoint();
  cleanups.push(() => server.close());
  return {
    server,
    endpoint: {
      hold: () => server.armNth(5, 'hold'),
      received: () => server.scored(),
      releaseHeld: () => server.releaseHeld(),
    },
  };
}

function divergenceArgs(baseUrl: string, model: string, runDir: string): string[] {
  return [
    'pilot',
    '--protocol',
    'divergence-v0.1',
    '--base-url',
    baseUrl,
    '--models',
    model,
    '--ceiling-usd',
    '1',
    '--replicates',
    '1',
    '--resamples',
    '20',
    '--concurrency',
    '1',
    '--out',
    runDir,
  ];
}

describe('the divergence protocol stops on the first signal through the default pilot’s stop path', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s: nothing sent after it, exit 3 with the resume command, and --resume completes the run (SIGINT resumes it)',
    async (signal) => {
      const { server, endpoint } = await divergenceEndpoint();
      const cwd = testFolder('chi-stop-divergence-');
      const runDir = join(cwd, 'run');
      const args = divergenceArgs(server.baseUrl, server.model, runDir);
      const stopped = await stopWhileHeld(args, runDir, endpoint, [signal]);
      expect(stopped.receivedAfterSignal).toBe(0);
      expect(stopped.beforeSendsAfterSignal).toBe(0);
      expect(stopped.exit, stopped.stderr).toBe(3);
      expect(stopped.stderr).toContain(`chi: ${signal}: stopping: no new requests`);
      await resumeIfChosen(`divergence ${signal}`, cwd, stopped.stderr);
    },
  );

  it('a second signal quits at once with exit 130', async () => {
    const { server, endpoint } = await divergenceEndpoint();
    const cwd = testFolder('chi-stop-twice-');
    const runDir = join(cwd, 'run');
    const args = divergenceArgs(server.baseUrl, server.model, runDir);
    const stopped = await stopWhileHeld(args, runDir, endpoint, ['SIGINT', 'SIGINT']);
    expect(stopped.exit, stopped.stderr).toBe(130);
    expect(stopped.receivedAfterSignal).toBe(0);
  });
});
