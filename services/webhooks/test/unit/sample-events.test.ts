import { EVENT_NAMES, WebhookEnvelopeSchema } from '@switchboard/contracts';
import { sampleEnvelope } from '../../src/domain/sample-events';

describe('sample events for POST /{id}/test', () => {
  test.each(EVENT_NAMES)(
    'when %s is sampled, then the envelope is valid against the contracts',
    (event) => {
      const envelope = sampleEnvelope(event, 42, new Date('2026-11-22T10:00:00Z'));
      expect(WebhookEnvelopeSchema.parse(envelope)).toEqual(envelope);
      expect(envelope.event).toBe(event);
      if ('company_id' in envelope.data) expect(envelope.data.company_id).toBe(42);
    },
  );
});
