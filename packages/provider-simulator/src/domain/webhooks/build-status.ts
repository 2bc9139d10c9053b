import type { SentRecord, StatusEntry } from '../../state/records';
import type { WebhookError } from '../graph-error';

export interface Pricing {
  billable: boolean;
  pricing_model: 'PMP';
  type: 'regular' | 'free_customer_service';
  category: string;
}

/**
 * Per-message pricing (PMP): a template is billed in its category; anything else can only be
 * sent inside a customer service window, where it is free (`service`).
 */
export function pricingFor(record: SentRecord): Pricing {
  if (record.template) {
    return {
      billable: true,
      pricing_model: 'PMP',
      type: 'regular',
      category: record.template.category.toLowerCase(),
    };
  }
  return {
    billable: false,
    pricing_model: 'PMP',
    type: 'free_customer_service',
    category: 'service',
  };
}

/**
 * One entry of `value.statuses` (reference §3.4). `conversation` is left out, as v24.0+ does.
 * `biz_opaque_callback_data` is echoed when the send carried it.
 */
export function buildStatus(
  record: SentRecord,
  status: StatusEntry['status'],
  timestamp: string,
  extras: { pricing?: boolean; errors?: WebhookError[] } = {},
): Record<string, unknown> {
  const request = record.request as { biz_opaque_callback_data?: unknown };
  return {
    id: record.wamid,
    status,
    timestamp,
    recipient_id: record.wa_id,
    ...(typeof request.biz_opaque_callback_data === 'string' && {
      biz_opaque_callback_data: request.biz_opaque_callback_data,
    }),
    ...(extras.pricing && { pricing: pricingFor(record) }),
    ...(extras.errors && { errors: extras.errors }),
  };
}
