import type {
  CampaignMessage,
  Contact,
  SendContentInput,
  VariableSource,
} from '@switchboard/contracts';
import { contentFor, fillContactPlaceholders, fillVariables } from '../../fill-message';

export type ContactFields = Pick<Contact, 'name' | 'phone' | 'email' | 'custom'>;

/**
 * What a flow's message step sends to this contact: `{{1}}`… (a template's body parameters) from
 * `variables`, and in texts `{{name}}`, `{{custom.<key>}}`, `{{reply}}`… from the contact and the
 * reply. A value the contact lacks leaves the message unfillable: the paths are returned.
 */
export function flowMessageContent(
  message: CampaignMessage,
  variables: VariableSource[] | undefined,
  contact: ContactFields,
  reply: string,
): { content: SendContentInput } | { missing: string[] } {
  const filled = fillVariables(variables ?? [], contact);
  if ('missing' in filled) return filled;
  if (message.type === 'template') return { content: contentFor(message, filled.values) };

  const missing: string[] = [];
  const fill = (text: string | undefined) => {
    if (text === undefined) return undefined;
    const result = fillContactPlaceholders(text, contact, reply);
    if ('missing' in result) {
      missing.push(...result.missing);
      return text;
    }
    return result.text;
  };
  const named = {
    ...message,
    text: fill(message.text)!,
    ...(message.header !== undefined ? { header: fill(message.header) } : {}),
    ...(message.footer !== undefined ? { footer: fill(message.footer) } : {}),
  };
  if (missing.length > 0) return { missing };
  return { content: contentFor(named, filled.values) };
}
