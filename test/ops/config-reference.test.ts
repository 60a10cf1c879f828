import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ENV_OVERRIDES } from '../../src/config/load.js';
import { configSettings, REFERENCE_PATH, renderReference } from '../../scripts/config-reference.js';

describe('config reference (docs/config.md)', () => {
  it('is up to date with the schema (run `npm run config:docs`)', () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).to.equal(renderReference());
  });

  it('documents every setting', () => {
    const undocumented = configSettings().filter((s) => !s.description).map((s) => s.path);
    expect(undocumented).to.deep.equal([]);
  });

  it('names every env override beside the setting it overrides', () => {
    const listed = new Map(configSettings().filter((s) => s.env).map((s) => [s.env, s.path]));
    for (const [name, { path }] of Object.entries(ENV_OVERRIDES)) expect(listed.get(name), name).to.equal(path.join('.'));
  });
});
