import type { B } from './b';

export interface A {
  readonly next: B;
}
