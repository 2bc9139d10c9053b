import { invalidParameter } from '../graph-error';

/**
 * `to` may carry `+`, `-`, `(`, `)`, `.` and spaces; the WhatsApp id is its digits (E.164:
 * 7 to 15 of them). Meta rewrites some national prefixes (Brazil, Mexico); the simulator does not.
 */
export function normalizeRecipient(to: string): string {
  if (!/^\+?[\d\s\-().]+$/.test(to.trim())) {
    throw invalidParameter(`Param to must be a valid phone number - got "${to}".`);
  }
  const digits = to.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) {
    throw invalidParameter(`Param to must be a valid phone number - got "${to}".`);
  }
  return digits;
}
