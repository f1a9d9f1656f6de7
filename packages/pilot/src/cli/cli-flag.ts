/**
 * One option of a `chi` command: the single declaration that the parser (`cli-args.ts`), the help
 * texts (`cli-help.ts`), the did-you-mean suggestions and the configuration file's error wording
 * (`config-file.ts`) all read, so no flag is parsed without being documented or documented
 * differently in two places.
 */
export interface CliFlag {
  /** The flag without its dashes: `replicates` for `--replicates`. */
  readonly name: string;
  /** How `node:util` `parseArgs` reads it: a value (`string`) or a bare switch (`boolean`). */
  readonly type: 'string' | 'boolean';
  /** The flag may be given several times (`--price`). */
  readonly multiple?: true;
  /** The value's placeholder in the help (`N`, `FILE`). */
  readonly placeholder?: string;
  /** The accepted range of a numeric value (inclusive), shown in the help and enforced by the parser. */
  readonly range?: { readonly min: number; readonly max: number };
  /** The default as the help states it (`8`, `4 offline, 1 live`); absent when there is none. */
  readonly defaultText?: string;
  /** What it does; `\n` starts a continuation line of the help. */
  readonly help: string;
  /**
   * The `chi pilot --config` key that stands for the flag (`ceilingUsd` for `--ceiling-usd`);
   * absent when a configuration file cannot set it.
   */
  readonly configKey?: string;
  /**
   * Also an option of `chi pilot --protocol divergence-v0.1`, with what it means there when that
   * differs (`worlds, default 8`); absent: the divergence protocol refuses the flag. The parser's
   * refusal and both help texts' table of the protocol's options are made from this field.
   */
  readonly divergence?: { readonly note?: string };
}
