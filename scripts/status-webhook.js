// A provider webhook carrying one status, as Meta (and the provider simulator) posts it: the
// benchmarks' fixture, so that each measures the same shape of body.

/**
 * The webhook body, with `status` (default `delivered`) of message `wamid` to `recipient`;
 * `billing` adds the conversation and pricing fields a billable status carries.
 */
function statusWebhook({
  wabaId = '102290129340398',
  displayPhoneNumber = '15550001111',
  phoneNumberId = '106540352242922',
  wamid = 'wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI5QTBDQjQ2RTQ5QkVBQ0E0OTEA',
  status = 'delivered',
  timestamp = '1700000000',
  recipient = '15550000000',
  billing = false,
} = {}) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: displayPhoneNumber,
                phone_number_id: phoneNumberId,
              },
              statuses: [
                {
                  id: wamid,
                  status,
                  timestamp,
                  recipient_id: recipient,
                  ...(billing
                    ? {
                        conversation: { id: 'c0ffee', origin: { type: 'service' } },
                        pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
                      }
                    : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

module.exports = { statusWebhook };
