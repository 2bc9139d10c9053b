/**
 * The `message` text of an inbound message (the published event payloads: "text of the message"), for every type
 * the provider sends (as the Cloud API documents its webhooks). `message_type` mirrors the provider's type as is.
 */
type Loose = Record<string, unknown>;

const asObject = (value: unknown): Loose =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Loose) : {};
const asText = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const asNumberText = (value: unknown): string | undefined =>
  typeof value === 'number' || (typeof value === 'string' && value.trim() !== '')
    ? String(value)
    : undefined;

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'sticker', 'document']);

function describeMedia(type: string, media: Loose): string {
  const caption = asText(media.caption);
  if (caption) return caption;
  if (type === 'document') return asText(media.filename) ?? '[document]';
  if (type === 'audio' && media.voice === true) return '[voice message]';
  return `[${type}]`;
}

function describeInteractive(interactive: Loose): string {
  const reply = asObject(interactive.button_reply ?? interactive.list_reply);
  const title = asText(reply.title);
  if (title) return title;
  const flow = asObject(interactive.nfm_reply);
  return asText(flow.body) ?? asText(flow.name) ?? `[${asText(interactive.type) ?? 'interactive'}]`;
}

function describeLocation(location: Loose): string {
  const place = [asText(location.name), asText(location.address)].filter(Boolean).join(', ');
  const latitude = asNumberText(location.latitude);
  const longitude = asNumberText(location.longitude);
  const point = latitude && longitude ? `${latitude}, ${longitude}` : '';
  return place && point ? `${place} (${point})` : place || point || '[location]';
}

function describeContacts(contacts: unknown): string {
  const names = (Array.isArray(contacts) ? contacts : [])
    .map((contact) => asText(asObject(asObject(contact).name).formatted_name))
    .filter((name): name is string => name !== undefined);
  return names.length > 0 ? `Contact: ${names.join(', ')}` : '[contacts]';
}

/**
 * The id of a chosen button or list row (automated replies match on it): an interactive
 * reply's `id`, or a template quick-reply button's `payload`.
 */
export function replyIdOf(message: Loose): string | undefined {
  if (message.type === 'button') return asText(asObject(message.button).payload)?.slice(0, 256);
  if (message.type !== 'interactive') return undefined;
  const interactive = asObject(message.interactive);
  return asText(asObject(interactive.button_reply ?? interactive.list_reply).id)?.slice(0, 256);
}

export function describeInbound(message: Loose): { type: string; text: string } {
  const type = asText(message.type) ?? 'unknown';
  const body = asObject(message[type]);
  if (MEDIA_TYPES.has(type)) return { type, text: describeMedia(type, body) };
  switch (type) {
    case 'text':
      return { type, text: asText(body.body) ?? '' };
    case 'interactive':
      return { type, text: describeInteractive(body) };
    case 'button':
      return { type, text: asText(body.text) ?? asText(body.payload) ?? '[button]' };
    case 'reaction':
      return { type, text: asText(body.emoji) ?? '[reaction removed]' };
    case 'location':
      return { type, text: describeLocation(body) };
    case 'contacts':
      return { type, text: describeContacts(message.contacts) };
    case 'system':
      return { type, text: asText(body.body) ?? '[system]' };
    case 'order':
      return { type, text: asText(body.text) ?? '[order]' };
    case 'unsupported': {
      const [error] = Array.isArray(message.errors) ? message.errors : [];
      const title = asText(asObject(error).title);
      return { type, text: title ? `[unsupported: ${title}]` : '[unsupported message]' };
    }
    default:
      return { type, text: `[${type}]` };
  }
}
