import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { COMMAND_EXIT_CODES } from './exit-codes';
import { installStopSignals, SETTLING_COMMANDS, type SignalProcess } from './stop-signals';

/** A process whose signals a test raises and whose `exit` is recorded instead of taken. */
function fakeProcess() {
  const events = new EventEmitter();
  const exits: number[] = [];
  const stderr = Object.assign(new EventEmitter(), {
    text: '',
    write(text: string) {
      stderr.text += text;
      return true;
    },
  });
  const target = {
    on: (event: string, listener: () => void) => events.on(event, listener),
    removeListener: (event: string, listener: () => void) => events.removeListener(event, listener),
    exit: (code: number) => {
      exits.push(code);
      return undefined as never;
    },
    stdout: new EventEmitter(),
    stderr,
  } satisfies SignalProcess;
  return { target, exits, stderr, raise: (name: string) => events.emit(name) };
}

// Issue 37, CLI habits: Ctrl-C on `chi score` (or verify, export, merge) printed "stopping: no new
// requests; waiting for requests in flight" and then ran on to the end; only a second Ctrl-C quit.
describe('the first stop signal of a command with nothing to settle', () => {
  it('quits at once with exit 130, saying so', () => {
    const { target, exits, stderr, raise } = fakeProcess();
    const stop = installStopSignals(target, { settle: false });
    raise('SIGINT');
    expect(exits).toEqual([130]);
    expect(stderr.text).toBe('\nchi: SIGINT: quit (exit 130)\n');
    stop.dispose();
  });

  it('of a run or a server still settles first, and the second quits', () => {
    const { target, exits, stderr, raise } = fakeProcess();
    const stop = installStopSignals(target, { settle: true });
    raise('SIGTERM');
    expect(exits).toEqual([]);
    expect(stop.signal.aborted).toBe(true);
    expect(stderr.text).toContain('stopping: no new requests');
    raise('SIGINT');
    expect(exits).toEqual([130]);
    stop.dispose();
  });

  it('settles for exactly the commands that read the stop signal; every command documents 130', () => {
    expect([...SETTLING_COMMANDS].sort()).toEqual(['pilot', 'serve', 'study', 'view']);
    for (const [command, codes] of Object.entries(COMMAND_EXIT_CODES))
      expect(codes, command).toContain(130);
  });
});
