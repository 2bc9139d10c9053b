import type { Router } from 'express';
import {
  AudienceCountRequestSchema,
  AudiencePageRequestSchema,
  CONTACTS_INTERNAL_PATHS,
  ContactsByIdsRequestSchema,
  InternalUpdateContactRequestSchema,
  InternalUsageParamsSchema,
  ResolveContactRequestSchema,
  USAGE_INTERNAL_ROUTE,
  type AudienceCountResponse,
  type AudiencePageResponse,
  type ContactsByIdsResponse,
  type InternalUpdateContactResponse,
  type InternalUsageResponse,
  type ResolveContactResponse,
} from '@switchboard/contracts';
import { AppError, orgContext, parseInput } from '@switchboard/service-kit';
import { contactsHeld } from '../../domain/contact-usage';
import type { ContactsDeps } from '../../domain/dependencies';
import { contactsByIds } from '../../domain/list-contacts';
import { resolveContact } from '../../domain/make-contact';
import { audiencePage, countAudience } from '../../domain/select-audience';
import { updateContactInternally } from '../../domain/update-contact';

/** The internal API other services call (behind the internal secret, which the runtime checks). */
export function internalRoutes(router: Router, deps: ContactsDeps): void {
  router.post(CONTACTS_INTERNAL_PATHS.resolve, async (req, res) => {
    const request = parseInput(ResolveContactRequestSchema, req.body ?? {});
    const quotaOf = request.enforce_quota ? orgContext(req) : undefined;
    if (quotaOf && quotaOf.company_id !== request.company_id) {
      throw new AppError('validation_failed', 'company_id: must be the organization of x-org-id');
    }
    const { contact, created } = await resolveContact(deps, request, new Date(), quotaOf);
    const body: ResolveContactResponse = { status: 'success', contact, created };
    res.status(created ? 201 : 200).json(body);
  });

  router.post(CONTACTS_INTERNAL_PATHS.byIds, async (req, res) => {
    const { company_id, ids } = parseInput(ContactsByIdsRequestSchema, req.body ?? {});
    const body: ContactsByIdsResponse = {
      status: 'success',
      contacts: await contactsByIds(deps, company_id, ids),
    };
    res.json(body);
  });

  router.post(CONTACTS_INTERNAL_PATHS.audienceCount, async (req, res) => {
    const request = parseInput(AudienceCountRequestSchema, req.body ?? {});
    const body: AudienceCountResponse = {
      status: 'success',
      total: await countAudience(deps, request),
    };
    res.json(body);
  });

  router.post(CONTACTS_INTERNAL_PATHS.audience, async (req, res) => {
    const request = parseInput(AudiencePageRequestSchema, req.body ?? {});
    const body: AudiencePageResponse = {
      status: 'success',
      ...(await audiencePage(deps, request)),
    };
    res.json(body);
  });

  router.post(CONTACTS_INTERNAL_PATHS.update, async (req, res) => {
    const request = parseInput(InternalUpdateContactRequestSchema, req.body ?? {});
    const body: InternalUpdateContactResponse = {
      status: 'success',
      contact: await updateContactInternally(deps, request),
    };
    res.json(body);
  });

  // The gateway's getUsage: contacts held (no month: the contact quota is not monthly).
  router.get(USAGE_INTERNAL_ROUTE, async (req, res) => {
    const { company_id } = parseInput(InternalUsageParamsSchema, req.params);
    const body: InternalUsageResponse = {
      status: 'success',
      used: await contactsHeld(deps, company_id),
    };
    res.json(body);
  });
}
