import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunFolderDamagedError } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { studyPaths } from './study-folder';
import { finishedSessions } from './study-records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chi-study-records-'));
  mkdirSync(studyPaths(dir).sessions, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('finishedSessions', () => {
  it('stops at the first session without a record', () => {
    expect(finishedSessions(studyPaths(dir), 3)).toEqual([]);
  });

  it('names a session record that is not JSON as a damaged study, not a parse error', () => {
    const path = studyPaths(dir).sessionRecord(0);
    writeFileSync(path, '{"sessionIndex": 0,', 'utf8');
    const read = () => finishedSessions(studyPaths(dir), 3);
    expect(read).toThrow(RunFolderDamagedError);
    expect(read).toThrow(path);
    expect(read).toThrow('not JSON');
  });

  it('names a record that is not the one of its slot', () => {
    const path = studyPaths(dir).sessionRecord(0);
    writeFileSync(path, JSON.stringify({ sessionIndex: 1 }), 'utf8');
    expect(() => finishedSessions(studyPaths(dir), 3)).toThrow('not the session record of s0');
  });
});
