import type { FaultRule } from '../../src/domain/faults/fault-rules';
import {
  classifyFaultRule,
  FaultRuleInputSchema,
  matchesSend,
  takeMatchingRule,
} from '../../src/domain/faults/fault-rules';
import { TokenBucket } from '../../src/domain/faults/token-bucket';

const rule = (input: Record<string, unknown>, id = 1): FaultRule =>
  classifyFaultRule(FaultRuleInputSchema.parse(input), id);

describe('fault rules', () => {
  const send = { phone_number_id: '111', wa_id: '16505551234', type: 'text' };

  it('when a rule names the recipient with + and spaces, then it matches the digits', () => {
    expect(matchesSend(rule({ to: '+1 650 555 1234', error_code: 1 }), send)).toBe(true);
    expect(matchesSend(rule({ to: '+1 650 555 0000', error_code: 1 }), send)).toBe(false);
  });

  it('when a rule has count 2, then it applies twice and is removed', () => {
    const rules = [rule({ error_code: 131000, count: 2 })];

    expect(takeMatchingRule(rules, (r) => matchesSend(r, send))).toBeDefined();
    expect(takeMatchingRule(rules, (r) => matchesSend(r, send))).toBeDefined();
    expect(takeMatchingRule(rules, (r) => matchesSend(r, send))).toBeUndefined();
    expect(rules).toHaveLength(0);
  });

  it('when two rules match, then the oldest applies', () => {
    const rules = [rule({ error_code: 1 }, 1), rule({ error_code: 2 }, 2)];

    expect(takeMatchingRule(rules, (r) => matchesSend(r, send))?.error_code).toBe(1);
  });

  it('when rules are classified, then throughput and template rules never match sends', () => {
    expect(rule({ throughput_per_second: 5 }).kind).toBe('throughput');
    expect(rule({ template_decision: 'REJECTED' }).kind).toBe('template_review');
    expect(matchesSend(rule({ throughput_per_second: 5 }), send)).toBe(false);
  });

  it('when a rule has no effect or mixes kinds, then the schema refuses it', () => {
    expect(FaultRuleInputSchema.safeParse({ to: '1' }).success).toBe(false);
    expect(
      FaultRuleInputSchema.safeParse({ latency_ms: 5, template_decision: 'APPROVED' }).success,
    ).toBe(false);
    expect(FaultRuleInputSchema.safeParse({ body: 'x' }).success).toBe(false);
  });
});

describe('token bucket', () => {
  it('when the bucket holds 3 per second, then a 4th take in the same instant fails and a refill allows one more', () => {
    const bucket = new TokenBucket(3, 3, 0);

    expect([bucket.tryTake(0), bucket.tryTake(0), bucket.tryTake(0), bucket.tryTake(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.tryTake(334)).toBe(true);
    expect(bucket.tryTake(334)).toBe(false);
  });
});
