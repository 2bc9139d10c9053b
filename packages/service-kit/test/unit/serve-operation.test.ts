import { Router } from 'express';
import { operationsServedBy } from '@switchboard/contracts';
import { checkServedOperations, serveOperation } from '../../src';

const answer = async () => undefined;

/** A router serving every operation the contracts give contacts, but those named in `except`. */
function contactsRouter(except: string[] = []): Router {
  const router = Router();
  for (const { name } of operationsServedBy('contacts')) {
    if (!except.includes(name)) serveOperation(router, name, answer);
  }
  return router;
}

describe('checkServedOperations', () => {
  test('when a service serves exactly the operations it owns, then it may start', () => {
    expect(() => checkServedOperations('contacts', contactsRouter())).not.toThrow();
    expect(() => checkServedOperations('webhooks', Router())).not.toThrow();
  });

  test('when the gateway serves its own operations beside its forwarder, document and event stream, then it may start', () => {
    const router = Router();
    for (const { name } of operationsServedBy('gateway')) serveOperation(router, name, answer);
    router.get('/api/svc/openapi.json', answer);
    router.get('/api/svc/events/stream', answer);
    router.all('/api/svc/:operation', answer);
    expect(() => checkServedOperations('gateway', router)).not.toThrow();
    serveOperation(router, 'getContacts', answer);
    expect(() => checkServedOperations('gateway', router)).toThrow(
      'getContacts is handled but not an operation gateway owns',
    );
  });

  test('when an operation it owns has no handler, then the service refuses to start and names it', () => {
    expect(() => checkServedOperations('contacts', contactsRouter(['deleteGroup']))).toThrow(
      'contacts serves other operations than the contracts say: deleteGroup has no handler',
    );
  });

  test('when it handles an operation another service owns, then it refuses to start', () => {
    const router = contactsRouter();
    serveOperation(router, 'getMessages', answer);
    expect(() => checkServedOperations('contacts', router)).toThrow(
      'getMessages is handled but not an operation contacts owns',
    );
  });

  test('when an operation is routed around serveOperation, then it refuses to start', () => {
    const router = contactsRouter(['getGroups']);
    router.get('/api/svc/getGroups', answer);
    expect(() => checkServedOperations('contacts', router)).toThrow(
      'getGroups is routed without serveOperation',
    );
  });

  test('when a name is not a defined operation, then serving it fails at once', () => {
    expect(() => serveOperation(Router(), 'listThings' as never, answer)).toThrow(
      'listThings is not a defined operation',
    );
  });
});
