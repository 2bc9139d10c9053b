import {
  CAMPAIGN_ID_HEADER,
  placeholderSources,
  type OrgContext,
  type SendCampaignRequest,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { StoredCampaign } from '../../data-access/campaigns/campaign-store';
import type { CampaignsDeps } from './dependencies';
import { campaignStarted } from './start-campaign';
import { contentFor, fillVariables } from '../fill-message';

/**
 * `sendcampaigns` / `sendCampaignMessageToPhoneNumber`: the API campaign's
 * message to one phone, its variables filled from the contact (created when new) and `data`,
 * sent now through messaging; the answer is messaging's.
 */
export async function sendApiCampaign(
  deps: CampaignsDeps,
  organization: OrgContext,
  request: SendCampaignRequest,
  idempotencyKey?: string,
): Promise<{ message_id: number; message_wamid: string }> {
  const id = (request.campaing_id ?? request.campaign_id)!;
  const campaign = await deps.campaigns.find(organization.company_id, id);
  if (!campaign || campaign.type !== 'api' || campaign.status === 'canceled') {
    throw new AppError('not_found', `campaing_id: no API campaign ${id}`);
  }
  // Checked before the contact is made: a call missing data has no effect at all.
  const sources = placeholderSources(campaign);
  const needsContact = sources.some((source) => 'field' in source);
  const fromData = fillVariables(
    sources.filter((source) => !('field' in source)),
    null,
    request.data,
  );
  if ('missing' in fromData) throw missingVariables(fromData.missing);
  const contact = await deps.clients.resolve(organization, request.phone);
  if (contact.subscription === 'unsubscribed') {
    // A campaign is marketing: a contact who opted out is skipped, nothing is sent or counted.
    throw new AppError(
      'contact_unsubscribed',
      'phone: the contact has unsubscribed; campaign messages are not sent to them',
    );
  }
  const filled = fillVariables(sources, needsContact ? contact : null, request.data);
  if ('missing' in filled) throw missingVariables(filled.missing);

  const content = contentFor(campaign.message, filled.values);
  const { type, ...fields } = content;
  await markInUse(deps, campaign);
  // The campaign's id rides with the send, so the message's events count in its progress.
  const headers: Record<string, string> = { [CAMPAIGN_ID_HEADER]: String(campaign.id) };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  return deps.clients.send(
    organization,
    type === 'template' ? 'sendtemplatemessage' : 'sendMessageToPhoneNumber',
    { ...fields, phone: contact.phone },
    headers,
  );
}

/**
 * An API campaign is a draft until its first trigger, then started for as long as it is used
 * (it never completes: there is no audience to finish). The move happens once, with its
 * `campaign_started` in the same write.
 */
async function markInUse(deps: CampaignsDeps, campaign: StoredCampaign): Promise<void> {
  if (campaign.status !== 'draft') return;
  const now = new Date();
  const moved = await deps.campaigns.update(
    campaign.id,
    { status: 'draft' },
    { status: 'started', started_at: now },
    [campaignStarted(campaign, 1, now)],
  );
  if (moved) deps.relay.relaySoon(deps.campaigns.outbox, String(campaign.id));
}

const missingVariables = (paths: string[]) =>
  new AppError('validation_failed', `data: missing variables: ${paths.join(', ')}`, {
    details: { missing: paths },
  });
