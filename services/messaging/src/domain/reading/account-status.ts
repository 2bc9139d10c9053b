import type { AccountStatusResponse } from '@switchboard/contracts';
import { AppError, createTtlCache, loadThrough } from '@switchboard/service-kit';
import type { AccountNotice } from '../../data-access/channel-store';
import type { CloudApi } from '../../outbound/cloud-api';
import type { ChannelDirectory } from '../channel-directory';
import { REVIEW_ACCOUNT_STATUS } from '../receiving/account-notices';

const PHONE_FIELDS = [
  'quality_rating',
  'whatsapp_business_manager_messaging_limit',
  'name_status',
  'verified_name',
  'display_phone_number',
  'status',
  'throughput',
];
/** Phone number statuses (as the Cloud API documents it) that mean the number cannot send. */
const DISCONNECTED = new Set(['DISCONNECTED', 'DELETED', 'PENDING', 'MIGRATED']);
const BLOCKED = new Set(['BANNED', 'RESTRICTED', 'FLAGGED', 'RATE_LIMITED']);

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/**
 * `accountStatus` asks the provider through a short per-organization cache: the provider's
 * Graph API allows about 200 calls an hour per account, and a dashboard polls. An account,
 * review, name or quality webhook forgets the organization's entry on the replica that received
 * it; the account decision it carried is stored and read on every call, so every replica answers
 * it at once.
 */
export function createAccountStatusReader(
  deps: {
    channels: ChannelDirectory;
    cloudApi: CloudApi;
    notices: { accountNotice(company_id: number): Promise<AccountNotice | null> };
  },
  ttlMs: number,
) {
  const cache = createTtlCache<number, Promise<AccountStatusResponse>>({
    ttlMs,
    maxEntries: 10_000,
  });
  // A failed or disconnected answer is not kept: the next call asks again.
  const ask = (company_id: number): Promise<AccountStatusResponse> =>
    loadThrough(
      cache,
      company_id,
      () => getAccountStatus(deps, company_id),
      (status) => status.connection_state === 'connected',
    );
  return {
    /** The provider's answer (cached), with the latest account notice read fresh on top. */
    async read(company_id: number): Promise<AccountStatusResponse> {
      const [answer, notice] = await Promise.all([
        ask(company_id),
        deps.notices.accountNotice(company_id),
      ]);
      return withAccountNotice(answer, notice);
    },
    forget(company_id: number): void {
      cache.delete(company_id);
    },
  };
}

export type AccountStatusReader = ReturnType<typeof createAccountStatusReader>;

/**
 * The provider's fields do not show a ban or a restriction of the business account, and its
 * review status may lag its own notice: the latest account notice decides the account status,
 * unless the phone number itself is blocked right now (a live fact of its own).
 */
export function withAccountNotice(
  answer: AccountStatusResponse,
  notice: AccountNotice | null,
): AccountStatusResponse {
  if (!notice) return answer;
  const phoneBlocked =
    answer.account_status !== null && BLOCKED.has(answer.account_status.toUpperCase());
  return {
    ...answer,
    account_status: phoneBlocked ? answer.account_status : notice.account_status,
    account_review_status: notice.review_status ?? answer.account_review_status,
  };
}

/**
 * The API's `accountStatus`, asked of the provider (phone number and WABA, in
 * parallel). A provider that cannot be reached or refuses us makes the answer
 * `connection_state: "disconnected"`, never an error.
 */
export async function getAccountStatus(
  deps: { channels: ChannelDirectory; cloudApi: CloudApi },
  company_id: number,
): Promise<AccountStatusResponse> {
  const channel = await deps.channels.find(company_id);
  if (!channel) throw new AppError('not_found', 'This organization has no messaging channel');
  const client = deps.cloudApi.forChannel(channel);
  const [phone, waba] = await Promise.all([
    client.getNode(channel.phone_number_id, PHONE_FIELDS),
    client.getNode(channel.waba_id, ['account_review_status']),
  ]);
  const base = {
    status: 'success' as const,
    phone_number: channel.display_phone_number,
    display_name: channel.verified_name,
  };
  if (!phone.ok) {
    return {
      ...base,
      connection_state: 'disconnected',
      account_status: null,
      account_review_status: null,
      quality_rating: null,
      messaging_tier: null,
      name_status: null,
      error: phone.failure.message,
    };
  }
  const review = waba.ok ? text(waba.data.account_review_status) : null;
  const phoneStatus = text(phone.data.status);
  const accountStatus =
    phoneStatus && BLOCKED.has(phoneStatus)
      ? phoneStatus.toLowerCase()
      : review
        ? (REVIEW_ACCOUNT_STATUS[review] ?? review.toLowerCase())
        : null;
  const connected = !phoneStatus || !DISCONNECTED.has(phoneStatus);
  return {
    ...base,
    phone_number: text(phone.data.display_phone_number) ?? base.phone_number,
    display_name: text(phone.data.verified_name) ?? base.display_name,
    connection_state: connected ? 'connected' : 'disconnected',
    account_status: accountStatus,
    account_review_status: review,
    quality_rating: text(phone.data.quality_rating),
    messaging_tier: text(phone.data.whatsapp_business_manager_messaging_limit),
    name_status: text(phone.data.name_status),
    error: connected ? null : `The phone number's status is ${phoneStatus}`,
  };
}
