import type { Router } from 'express';
import {
  ContactIdRequestSchema,
  GetContactsQuerySchema,
  GetSingleContactQuerySchema,
  MakeContactRequestSchema,
  UpdateAIBotRequestSchema,
  UpdateContactRequestSchema,
  type Contact,
  type ContactResponse,
  type ContactsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import { deleteContact } from '../../domain/delete-contact';
import type { ContactsDeps } from '../../domain/dependencies';
import {
  getSingleContact,
  listAllContacts,
  listContactPage,
  wantsPage,
} from '../../domain/list-contacts';
import { makeContact } from '../../domain/make-contact';
import { updateAIBot, updateContact } from '../../domain/update-contact';
import { sendContactStream } from './stream-contacts';

const contactResponse = (contact: Contact): ContactResponse => ({ status: 'success', contact });

/** The contact operations of the published REST API, for the organization the gateway names. */
export function contactRoutes(router: Router, deps: ContactsDeps): void {
  serveOperation(router, 'getContacts', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetContactsQuerySchema, operationInput(req));
    if (wantsPage(query)) {
      const body: ContactsResponse = {
        status: 'success',
        ...(await listContactPage(deps, company_id, query)),
      };
      res.json(body);
      return;
    }
    await sendContactStream(res, await listAllContacts(deps, company_id, query));
  });

  serveOperation(router, 'getSingleContact', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetSingleContactQuerySchema, operationInput(req));
    res.json(contactResponse(await getSingleContact(deps, company_id, query)));
  });

  serveOperation(router, 'makeContact', async (req, res) => {
    const organization = orgContext(req);
    const request = parseInput(MakeContactRequestSchema, operationInput(req));
    const { contact, created } = await makeContact(deps, organization, request);
    res.status(created ? 201 : 200).json(contactResponse(contact));
  });

  serveOperation(router, 'updateContact', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(UpdateContactRequestSchema, operationInput(req));
    res.json(contactResponse(await updateContact(deps, company_id, request)));
  });

  serveOperation(router, 'deleteContact', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(ContactIdRequestSchema, operationInput(req));
    res.json(contactResponse(await deleteContact(deps, company_id, id)));
  });

  serveOperation(router, 'updateAIBot', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(UpdateAIBotRequestSchema, operationInput(req));
    res.json(contactResponse(await updateAIBot(deps, company_id, request)));
  });
}
