import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATOR_NAME, GENERATOR_VERSION, generatorInfo } from './version';

type Bump = 'major' | 'minor' | 'patch';
const BUMP_RANK: Record<Bump, number> = { patch: 1, minor: 2, major: 3 };

/** The bump pending changesets give `packageName` (the highest one), or null when none names it. */
function pendingBump(changesetFiles: readonly string[], packageName: string): Bump | null {
  let highest: Bump | null = null;
  for (const text of changesetFiles) {
    const frontMatter = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
    for (const line of frontMatter.split('\n')) {
      const match = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
      if (match?.[1] !== packageName) continue;
      const bump = match[2] as Bump;
      if (highest === null || BUMP_RANK[bump] > BUMP_RANK[highest]) highest = bump;
    }
  }
  return highest;
}

/** The version `changeset version` gives a package at `version` with `bump` pending. */
function bumped(version: string, bump: Bump | null): string {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  if (bump === 'patch') return `${major}.${minor}.${patch + 1}`;
  return version;
}

function readChangesets(): string[] {
  const folder = new URL('../../../.changeset/', import.meta.url);
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => readFileSync(new URL(name, folder), 'utf8'));
}

describe('generator info', () => {
  it('is the version this package is released as, so datasets name the code that made them', () => {
    // The released version is package.json after `changeset version` applies the pending
    // changesets; bumping package.json by hand as well would release one version too far.
    const manifest = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { name: string; version: string };
    const released = bumped(manifest.version, pendingBump(readChangesets(), manifest.name));
    expect(GENERATOR_NAME).toBe(manifest.name);
    expect(GENERATOR_VERSION).toBe(released);
    expect(generatorInfo()).toEqual({ name: manifest.name, version: released });
  });

  it('reads the highest pending bump of a package from changeset front matter', () => {
    const files = [
      '---\n"@chi/worlds": minor\n"@chi/spec": major\n---\n\ntext',
      '---\n"@chi/worlds": patch\n---\n',
      '---\n"@chi/scoring": major\n---\n',
    ];
    expect(pendingBump(files, '@chi/worlds')).toBe('minor');
    expect(pendingBump(files, '@chi/stats')).toBeNull();
    expect(bumped('0.1.0', 'minor')).toBe('0.2.0');
    expect(bumped('0.1.3', 'patch')).toBe('0.1.4');
    expect(bumped('0.1.3', null)).toBe('0.1.3');
    expect(bumped('0.9.1', 'major')).toBe('1.0.0');
  });
});
