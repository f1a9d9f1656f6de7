import { describe, expect, it } from 'vitest';
import {
  normalizeChoiceAnswer,
  normalizeExactAnswer,
  normalizeProbeSource,
  normalizeProbeValue,
} from './answer-normalization';

describe('answer normalization', () => {
  it('memory values: trimmed and lowercased, nothing else', () => {
    expect(normalizeProbeValue(' 0A1B2C3D\n')).toBe('0a1b2c3d');
    expect(normalizeProbeValue('0x0a1b2c3d')).toBe('0x0a1b2c3d');
    expect(normalizeProbeValue('0a1b 2c3d')).toBe('0a1b 2c3d');
  });

  it('memory sources: trimmed, case and inner spacing kept', () => {
    expect(normalizeProbeSource('  Ledger 7 ')).toBe('Ledger 7');
    expect(normalizeProbeSource('ledger  7')).toBe('ledger  7');
  });

  it('exact answers: NFC, trimmed, whitespace collapsed, case kept', () => {
    expect(normalizeExactAnswer('  aB\t\n c ')).toBe('aB c');
    expect(normalizeExactAnswer('e\u0301')).toBe('\u00e9');
  });

  it('choice answers: as exact answers, then lowercased', () => {
    expect(normalizeChoiceAnswer('  Route\tNorth ')).toBe('route north');
  });
});
