export interface B {
  readonly end: true;
}
