import type { C } from './c';

export interface B {
  readonly next: C;
}
