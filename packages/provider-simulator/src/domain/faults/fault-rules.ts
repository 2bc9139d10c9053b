import { z } from 'zod';

const STATUS_STEPS = ['sent', 'delivered', 'read'] as const;
export type StatusStep = (typeof STATUS_STEPS)[number];

/**
 * `POST /sim/faults` body. One rule of one of three kinds, told apart by its fields:
 * - a throughput limit (`throughput_per_second`, optionally for one `phone_number_id`);
 * - a template review decision (`template_decision`, optionally for names containing `template_name`);
 * - a media fault (`media: "lookup"` for `GET /{media-id}`, `"download"` for the download URL,
 *   optionally for one `media_id`), with `http_status`, `latency_ms` or `drop_connection`;
 * - otherwise a send rule, matching sends by `phone_number_id`, `to` and `type`, for `count` sends
 *   (unlimited when absent), with any of: a synchronous error (`error_code`, `http_status`, `body`,
 *   `drop_connection`), `latency_ms`, or an asynchronous outcome (`async_error_code`, `statuses`,
 *   `duplicate_statuses`, `reorder_statuses`).
 */
export const FaultRuleInputSchema = z
  .object({
    phone_number_id: z.string().min(1).optional(),
    to: z.string().min(1).optional(),
    type: z.string().min(1).optional(),
    count: z.number().int().positive().optional(),
    error_code: z.number().int().nonnegative().optional(),
    error_details: z.string().optional(),
    http_status: z.number().int().min(400).max(599).optional(),
    body: z.string().optional(),
    drop_connection: z.boolean().optional(),
    latency_ms: z.number().int().min(0).max(120_000).optional(),
    async_error_code: z.number().int().nonnegative().optional(),
    async_error_details: z.string().optional(),
    statuses: z.array(z.enum(STATUS_STEPS)).max(3).optional(),
    duplicate_statuses: z.boolean().optional(),
    reorder_statuses: z.boolean().optional(),
    throughput_per_second: z.number().min(0).optional(),
    template_decision: z.enum(['APPROVED', 'REJECTED', 'PENDING']).optional(),
    template_name: z.string().min(1).optional(),
    waba_id: z.string().min(1).optional(),
    rejection_reason: z.string().min(1).optional(),
    media: z.enum(['lookup', 'download']).optional(),
    media_id: z.string().min(1).optional(),
  })
  .superRefine((rule, ctx) => {
    const throughput = rule.throughput_per_second !== undefined;
    const review = rule.template_decision !== undefined;
    const sendEffects = [
      rule.error_code,
      rule.http_status,
      rule.body,
      rule.drop_connection,
      rule.latency_ms,
      rule.async_error_code,
      rule.statuses,
      rule.duplicate_statuses,
      rule.reorder_statuses,
    ].some((value) => value !== undefined);
    const media = rule.media !== undefined;
    if (media) {
      if (![rule.http_status, rule.latency_ms, rule.drop_connection].some((v) => v !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'a media fault needs http_status, latency_ms or drop_connection',
        });
      }
      return;
    }
    const kinds = [throughput, review, sendEffects].filter(Boolean).length;
    if (kinds !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a fault needs exactly one kind of effect: a send effect (error_code, http_status, body, drop_connection, latency_ms, async_error_code, statuses, duplicate_statuses, reorder_statuses), throughput_per_second, or template_decision',
      });
    }
    if (rule.body !== undefined && rule.http_status === undefined) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'body needs http_status' });
    }
    if (rule.error_code !== undefined && rule.async_error_code !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'error_code (synchronous) and async_error_code cannot be combined',
      });
    }
  });
export type FaultRuleInput = z.infer<typeof FaultRuleInputSchema>;

export interface FaultRule extends FaultRuleInput {
  id: number;
  kind: 'send' | 'throughput' | 'template_review' | 'media';
  applied: number;
}

export function classifyFaultRule(input: FaultRuleInput, id: number): FaultRule {
  const kind =
    input.media !== undefined
      ? 'media'
      : input.throughput_per_second !== undefined
        ? 'throughput'
        : input.template_decision !== undefined
          ? 'template_review'
          : 'send';
  return { ...input, id, kind, applied: 0 };
}

export interface SendFacts {
  phone_number_id: string;
  wa_id: string;
  type: string;
}

const digits = (value: string): string => value.replace(/\D/g, '');

export function matchesSend(rule: FaultRule, send: SendFacts): boolean {
  return (
    rule.kind === 'send' &&
    (rule.phone_number_id === undefined || rule.phone_number_id === send.phone_number_id) &&
    (rule.to === undefined || digits(rule.to) === send.wa_id) &&
    (rule.type === undefined || rule.type === send.type)
  );
}

export function matchesMedia(
  rule: FaultRule,
  stage: 'lookup' | 'download',
  mediaId: string,
): boolean {
  return (
    rule.kind === 'media' &&
    rule.media === stage &&
    (rule.media_id === undefined || rule.media_id === mediaId)
  );
}

export function matchesTemplateReview(rule: FaultRule, wabaId: string, name: string): boolean {
  return (
    rule.kind === 'template_review' &&
    (rule.waba_id === undefined || rule.waba_id === wabaId) &&
    (rule.template_name === undefined || name.includes(rule.template_name))
  );
}

/**
 * The first matching rule applies (rules are tried oldest first) and spends one of its `count`;
 * a spent rule is removed. Returns the rule that applied, if any.
 */
export function takeMatchingRule(
  rules: FaultRule[],
  matches: (rule: FaultRule) => boolean,
): FaultRule | undefined {
  const index = rules.findIndex(matches);
  if (index < 0) return undefined;
  const rule = rules[index]!;
  rule.applied += 1;
  if (rule.count !== undefined && rule.applied >= rule.count) rules.splice(index, 1);
  return rule;
}
