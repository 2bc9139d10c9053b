import type { CloudApiResult, ProviderConnection } from './call-provider';

/** Reading the account: the phone number's or the WABA's fields. */
export interface AccountCalls {
  /** `GET /{node}?fields=…` of the phone number or the WABA. */
  getNode(node: string, fields: string[]): Promise<CloudApiResult<Record<string, unknown>>>;
}

export function accountCalls({ call }: ProviderConnection): AccountCalls {
  return {
    getNode: (node, fields) =>
      call({ method: 'GET', url: `/${node}`, params: { fields: fields.join(',') } }, (data) =>
        typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null,
      ),
  };
}
