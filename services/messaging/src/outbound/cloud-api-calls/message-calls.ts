import type { CloudApiResult, NumberChannel, ProviderConnection } from './call-provider';

export interface SendAccepted {
  wamid: string;
}

export interface MediaUpload {
  buffer: Buffer;
  mimeType: string;
  filename: string;
}

interface GraphSendResponse {
  messages?: { id?: unknown }[];
}

/** The calls about a number's messages: send one, upload its file, mark a received one read. */
export interface MessageCalls {
  sendMessage(body: Record<string, unknown>): Promise<CloudApiResult<SendAccepted>>;
  uploadMedia(media: MediaUpload): Promise<CloudApiResult<{ id: string }>>;
  /** Marks a received message read (`status: read`), with a typing indicator when asked. */
  markRead(wamid: string, typing: boolean): Promise<CloudApiResult<true>>;
}

export function messageCalls(
  channel: NumberChannel,
  { raw, headers, call }: ProviderConnection,
): MessageCalls {
  return {
    // Every send goes through here: a plain JSON POST on the client's keep-alive agent.
    sendMessage: (body) =>
      call(
        () => raw.postJson(`/${channel.phone_number_id}/messages`, body, headers),
        (data) => {
          const id = (data as GraphSendResponse | undefined)?.messages?.[0]?.id;
          return typeof id === 'string' && id !== '' ? { wamid: id } : null;
        },
      ),
    markRead: (wamid, typing) =>
      call(
        () =>
          raw.postJson(
            `/${channel.phone_number_id}/messages`,
            {
              messaging_product: 'whatsapp',
              status: 'read',
              message_id: wamid,
              ...(typing ? { typing_indicator: { type: 'text' } } : {}),
            },
            headers,
          ),
        (data) => ((data as { success?: unknown } | undefined)?.success === true ? true : null),
      ),
    uploadMedia: (media) => {
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('type', media.mimeType);
      form.append(
        'file',
        new Blob([new Uint8Array(media.buffer)], { type: media.mimeType }),
        media.filename,
      );
      return call(
        { method: 'POST', url: `/${channel.phone_number_id}/media`, data: form },
        (data) => {
          const id = (data as { id?: unknown } | undefined)?.id;
          return typeof id === 'string' && id !== '' ? { id } : null;
        },
      );
    },
  };
}
