import { divergence } from '@chi/experiments';
import { describe, expect, it } from 'vitest';
import { DIVERGENCE_REGISTRY } from '../divergence/run';
import { REGISTERED_EXPERIMENTS, selectExperiments } from './registry';

// The divergence protocol is a folder of @chi/experiments but not a template of the pilot: it is
// one of PROTOCOL_EXPERIMENTS, which `chi pilot --templates` and `chi templates` never iterate.
describe('the divergence folder in the pilot', () => {
  it('is not a template: --templates divergence is refused, naming the registered ones', () => {
    expect(REGISTERED_EXPERIMENTS.map((e) => e.id)).not.toContain('divergence');
    expect(() => selectExperiments(['divergence'])).toThrow(
      /unknown template "divergence"; registered: memory, history, behavior/,
    );
  });

  it("is the divergence run's whole registry", () => {
    expect(DIVERGENCE_REGISTRY).toEqual([divergence.experiment]);
  });
});
