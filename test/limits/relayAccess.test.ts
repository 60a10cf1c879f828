import { expect } from 'chai';
import { GatewayError } from '../../src/errors.js';
import { checkRelayAccess } from '../../src/limits/relayAccess.js';
import { limitsConfig, testKey } from './support.js';

function refusal(fn: () => void): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('limits: ledger relay access by plan', () => {
  it('in beta, admits only keys flagged relay_beta, whatever their plan', () => {
    const beta = limitsConfig({ relayPhase: 'beta' });
    checkRelayAccess(testKey('free', { relayBeta: true }), beta);
    const err = refusal(() => checkRelayAccess(testKey('enterprise'), beta));
    expect(err.errorName).to.equal('RELAY_FORBIDDEN');
    expect(err.http).to.equal(403);
    expect(err.message).to.include('beta').and.include('relay_beta');
  });

  it('in ga, admits the Developer, Startup, Premium and Enterprise plans and names them to everyone else', () => {
    const ga = limitsConfig({ relayPhase: 'ga' });
    for (const plan of ['developer', 'startup', 'premium', 'enterprise']) checkRelayAccess(testKey(plan), ga);
    const err = refusal(() => checkRelayAccess(testKey('free'), ga));
    expect(err.http).to.equal(403);
    expect(err.message).to.include('Developer, Startup, Premium and Enterprise plans').and.include('Free plan');
  });

  it('follows the configured plan list', () => {
    const custom = limitsConfig({ relayPhase: 'ga', relayPlans: ['enterprise'] });
    checkRelayAccess(testKey('enterprise'), custom);
    expect(refusal(() => checkRelayAccess(testKey('premium'), custom)).message).to.include('included in the Enterprise plan; this key is on the Premium plan');
  });
});
